package chaostest

// The chaos suite's claims: claimers compete for semantic IDs of the identity
// prefix the identity workers count, so identities must skip every value a claim won, through
// a leader's isolation; afterwards a lookup must find every claim as its claimer was told.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/reason"
	"github.com/idnode/idnode/test/history"
)

const (
	chaosClaimers       = 2                      // claim the same values at once, homes A and B
	chaosClaimValues    = 2                      // values per claim, all or nothing
	chaosClaimAhead     = 40                     // a claim aims at most this far above the highest identity acknowledged
	chaosClaimPace      = 100 * time.Millisecond // between rounds
	chaosProgressClaims = 10                     // claims answered (won or lost) per load phase
	chaosClaimLookup    = 1000                   // IDs per GetClaims: the most the server takes
)

// StartClaims adds claimers to the load. Round after round, chaosClaimers claimers claim the
// same values of chaosPrefix at once, each from its own home node and spelling the prefix its
// own way, so one wins and the others are refused (all are when an identity got there
// first). The values lie just above the highest identity acknowledged, where the identity
// workers are about to pass, so they must skip those won. Each claim has an owner of its own,
// "claimer-<w>-<round>", so the lookup after recovery tells which claim holds a value.
func (ld *chaosLoad) StartClaims() {
	ld.claimers = true
	ld.wg.Go(func() {
		for round := 0; round < chaosMaxOps && !ld.stopped(); round++ {
			values := claimTargets(ld.rec, round)
			var claims sync.WaitGroup
			for w := range chaosClaimers {
				claims.Go(func() {
					prefix := chaosPrefix
					if w%2 == 1 {
						prefix = "Orders" // the same IDs, spelt differently
					}
					err := ld.c.claim(ld.rec, prefix, fmt.Sprintf("claimer-%d-%d", w, round), values, w%len(ld.c.cluster.nodes), chaosOpBudget)
					switch {
					case err == nil:
						ld.claims.Add(1)
					case errors.Is(err, errChaosGaveUp):
						ld.gaveUp.Add(1)
					default:
						ld.fail(fmt.Errorf("claimer %d: %w", w, err))
					}
				})
			}
			claims.Wait()
			if !ld.pause(chaosClaimPace) {
				return
			}
		}
	})
}

// claimTargets are the values of a round: chaosClaimValues of them, 1 to 3 apart (so a block
// of 2 or 3 identities may have to skip one in its middle), the first up to chaosClaimAhead
// above the highest identity acknowledged.
func claimTargets(rec *history.Recorder, round int) []int64 {
	top, _ := rec.MaxIdentity(chaosPrefix)
	v := top + 1 + int64(round*7%chaosClaimAhead)
	values := make([]int64, chaosClaimValues)
	for i := range values {
		values[i] = v
		v += 1 + int64(round%3)
	}
	return values
}

// claim is one logical Claim of values of prefix (IDs prefix/N) for owner, recorded in rec:
// one request_id, tried on the nodes from home (onNodes). OK is a won claim; ALREADY_EXISTS,
// reason CLAIMED, naming another claimer or an identity handed out, a lost one; no answer
// within budget an unknown one (an error wrapping errChaosGaveUp). Any other answer is
// unexpected, returned, and recorded as unknown.
func (c *chaosClient) claim(rec *history.Recorder, prefix, owner string, values []int64, home int, budget time.Duration) error {
	ids := make([]string, len(values))
	for i, v := range values {
		ids[i] = fmt.Sprintf("%s/%d", prefix, v)
	}
	req := &idnodev1.ClaimRequest{Ids: ids, Owner: owner, RequestId: c.requestID()}
	op := rec.BeginClaim(prefix, owner, values...)
	err := c.onNodes(home, budget, func(ctx context.Context, tag string, _ int) error {
		_, err := c.ids[tag].Claim(ctx, req)
		return err
	})
	switch {
	case err == nil:
		op.Won()
		return nil
	case status.Code(err) == codes.AlreadyExists && reason.Of(err) == reason.Claimed &&
		(strings.Contains(err.Error(), `claimed by "claimer-`) || strings.Contains(err.Error(), "handed out as an identity")):
		op.Lost()
		return nil
	}
	op.Unknown()
	return fmt.Errorf("claim %q for %s: %w", ids, owner, err)
}

// verifyClaims looks every value a claimer named up on the healed cluster (GetClaims reads on
// the leader after a barrier: linearizable) and checks who holds each against what the
// claimers were told (history.CheckClaimHolders). counter is the identity counter after
// recovery: values held below it are values the identities had to skip, and a run without
// any checked nothing about skipping.
func (r *ChaosRun) verifyClaims(counter int64) error {
	holders := map[int64]string{}
	for values := range slices.Chunk(r.rec.ClaimedValues(chaosPrefix), chaosClaimLookup) {
		req := &idnodev1.GetClaimsRequest{Ids: make([]string, len(values))}
		for i, v := range values {
			req.Ids[i] = fmt.Sprintf("%s/%d", chaosPrefix, v)
		}
		var resp *idnodev1.GetClaimsResponse
		err := r.c.onNodes(0, ChaosRecoverWait, func(ctx context.Context, tag string, _ int) (err error) {
			resp, err = r.c.ids[tag].GetClaims(ctx, req)
			return err
		})
		if err != nil {
			return fmt.Errorf("GetClaims after recovery: %w", err)
		}
		for _, cl := range resp.GetClaims() {
			p, n, err := history.ParseIdentityID(cl.GetId(), '/')
			if _, twice := holders[n]; err != nil || twice || !strings.EqualFold(p, chaosPrefix) {
				return fmt.Errorf("GetClaims of %d IDs of %s answered %v", len(values), chaosPrefix, cl)
			}
			holders[n] = cl.GetOwner()
		}
	}
	passed := 0
	for v := range holders {
		if v < counter {
			passed++
		}
	}
	r.T.Logf("claims: %d values held after recovery, %d of them below the identity counter %d", len(holders), passed, counter)
	err := r.rec.CheckClaimHolders(chaosPrefix, holders)
	if passed == 0 {
		err = errors.Join(err, fmt.Errorf("no claimed value is below the identity counter %d after recovery: the identities never had to skip one", counter))
	}
	return err
}
