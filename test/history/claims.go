package history

// Claims (IdService/Claim) of identity-format IDs "prefix<sep>N". A claimed value makes the
// prefix's identities skip it, and a value the counter has passed cannot be claimed, so claims
// live in their prefix's history next to the identities: the duplicate check counts a value
// both claimed and handed out (or won by two claims), and the counter model of check.go keeps
// the claimed values, so an identity block's holes must be exactly the claimed ones.

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// ClaimOp is one logical Claim of values of a prefix, all or nothing, possibly retried with the
// same request_id. Finish it with Won, Lost or Unknown; the first of those wins.
type ClaimOp struct {
	r *Recorder

	// Set at Begin and never changed.
	Seq    int    // order of BeginClaim calls, from 0
	Prefix string // as the caller spelled it; compared case-insensitively
	Values []int64
	Owner  string
	Call   time.Duration

	// Guarded by r.mu.
	ret     time.Duration
	outcome Outcome
	won     bool
}

// BeginClaim records the first call of a Claim, for owner, of the IDs prefix<sep>v for each of
// values (the identity format of prefix).
func (r *Recorder) BeginClaim(prefix, owner string, values ...int64) *ClaimOp {
	call := r.Now()
	values = slices.Compact(slices.Sorted(slices.Values(values)))
	r.mu.Lock()
	defer r.mu.Unlock()
	op := &ClaimOp{r: r, Seq: len(r.claims), Prefix: prefix, Values: values, Owner: owner, Call: call}
	r.claims = append(r.claims, op)
	return op
}

// Won records that the claim was answered OK: every value is the owner's.
func (op *ClaimOp) Won() { op.finish(Acknowledged, true) }

// Lost records that the claim was refused (ALREADY_EXISTS): none of its values was taken.
func (op *ClaimOp) Lost() { op.finish(Acknowledged, false) }

// Unknown records that the client gave up: the claim may or may not have taken effect.
func (op *ClaimOp) Unknown() { op.finish(Unknown, false) }

func (op *ClaimOp) finish(outcome Outcome, won bool) {
	op.r.finish(&op.ret, &op.outcome, outcome, func() { op.won = won })
}

// ClaimedValues lists, ascending, every value of prefix (case-insensitive) that a recorded
// claim named, whatever its outcome: what a lookup after recovery should ask about.
func (r *Recorder) ClaimedValues(prefix string) []int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []int64
	for _, op := range r.claims {
		if fold(op.Prefix) == fold(prefix) {
			out = append(out, op.Values...)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// CheckClaimHolders compares the claims of prefix with holders: the owner holding each value of
// ClaimedValues(prefix), as a linearizable lookup after recovery found it (a value missing from
// holders is not claimed). It needs each claim to have an owner of its own, so that an owner
// names the claim that holds a value. It returns nil, or everything wrong of:
//   - a won claim whose values are not all held by its owner (an acknowledged claim lost);
//   - a lost claim whose owner holds any of its values (refused, yet applied);
//   - a claim of unknown outcome holding some of its values but not all (not all or nothing);
//   - a value held by an owner whose claim did not name it;
//   - a value held that was also handed out as an identity.
func (r *Recorder) CheckClaimHolders(prefix string, holders map[int64]string) error {
	s := r.snapshot()
	key := fold(prefix)
	claims := map[string]identitySnapshot{} // by owner
	handedOut := map[int64]bool{}
	for _, op := range s.identities {
		switch {
		case fold(op.prefix) != key:
		case op.claim:
			if _, twice := claims[op.claimOwner]; twice {
				return fmt.Errorf("prefix %q: owner %q made two claims, so a holder does not say which one holds a value", key, op.claimOwner)
			}
			claims[op.claimOwner] = op
		case op.increment() && op.outcome == Acknowledged:
			for _, run := range handedOutRuns(op) {
				for v := run.low; v <= run.high; v++ {
					handedOut[v] = true
				}
			}
		}
	}

	var (
		problems []string
		bad      int
	)
	problem := func(format string, args ...any) {
		bad++
		if len(problems) < maxExamples {
			problems = append(problems, fmt.Sprintf(format, args...))
		}
	}
	for _, owner := range slices.Sorted(maps.Keys(claims)) {
		op := claims[owner]
		held := 0
		for _, v := range op.claimValues {
			if h, ok := holders[v]; ok && h == owner {
				held++
			}
		}
		what := fmt.Sprintf("claim #%d of %v by %q", op.seq, op.claimValues, owner)
		switch {
		case op.outcome == Acknowledged && op.claimWon && held < len(op.claimValues):
			problem("%s was won, but its owner holds %d of its values", what, held)
		case op.outcome == Acknowledged && !op.claimWon && held > 0:
			problem("%s was refused, but its owner holds %d of its values", what, held)
		case op.outcome != Acknowledged && held > 0 && held < len(op.claimValues):
			problem("%s, of unknown outcome, holds %d of its values: not all or nothing", what, held)
		}
	}
	values := make([]int64, 0, len(holders))
	for v := range holders {
		values = append(values, v)
	}
	slices.Sort(values)
	for _, v := range values {
		owner := holders[v]
		if op, ok := claims[owner]; !ok || !slices.Contains(op.claimValues, v) {
			problem("value %d is held by %q, whose claim did not name it", v, owner)
		}
		if handedOut[v] {
			problem("value %d is held by %q and was handed out as an identity", v, owner)
		}
	}
	if bad == 0 {
		return nil
	}
	return fmt.Errorf("claims of prefix %q after recovery: %d problem(s): %s", key, bad, strings.Join(problems, "; "))
}
