package history

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
)

// maxExamples bounds the examples a Report keeps of each kind of problem.
const maxExamples = 5

// Report is the result of Check.
type Report struct {
	// IDs counts every ID a client received: identity values, server-side IDs and GUIDs.
	// HiLo ranges are counted apart (the client fills them; a range may hold a million).
	IDs           int
	Identities    int // acknowledged identity values (a block's skipped values are not)
	IdentityOps   int // identity operations, whatever their outcome
	UnknownOps    int // identity and seed operations without a final answer
	Retries       int // identity attempts beyond the first (same request_id)
	ServerSideIDs int
	GUIDs         int
	HiLoRanges    int

	// Claims by outcome: answered OK, refused (ALREADY_EXISTS), or without a final answer.
	ClaimsWon, ClaimsLost, ClaimsUnknown int

	// Duplicates counts values handed out more than once (each extra time counts once),
	// over every kind, an identity value that a won claim holds too, and a value won by two
	// claims; DuplicateExamples describes the first few.
	Duplicates        int
	DuplicateExamples []string

	// Linearizable is true when every prefix's history (identities, seeds and claims) is
	// linearizable and the checker finished in time. LinearizabilityProblems says which
	// prefixes failed and why.
	Linearizable            bool
	LinearizabilityProblems []string
}

// String is the one-line summary; the claim counts are in it when there were claims.
func (rep Report) String() string {
	line := fmt.Sprintf("ids=%d identities=%d hilo_ranges=%d duplicates=%d linearizable=%v",
		rep.IDs, rep.Identities, rep.HiLoRanges, rep.Duplicates, rep.Linearizable)
	if rep.ClaimsWon+rep.ClaimsLost+rep.ClaimsUnknown > 0 {
		line += fmt.Sprintf(" claims_won=%d claims_lost=%d claims_unknown=%d", rep.ClaimsWon, rep.ClaimsLost, rep.ClaimsUnknown)
	}
	return line
}

// OK reports whether nothing was found.
func (rep Report) OK() bool { return rep.Duplicates == 0 && rep.Linearizable }

// Err is nil when the history is fine, and otherwise says everything that is wrong.
func (rep Report) Err() error {
	if rep.OK() {
		return nil
	}
	var b strings.Builder
	b.WriteString(rep.String())
	for _, e := range rep.DuplicateExamples {
		b.WriteString("\n  duplicate: " + e)
	}
	for _, p := range rep.LinearizabilityProblems {
		b.WriteString("\n  not linearizable: " + p)
	}
	return errors.New(b.String())
}

// CheckOptions tune Check.
type CheckOptions struct {
	// Timeout bounds the linearizability search over all prefixes together; 0 means 30 s.
	// A search that runs out of time is a failure, not a pass.
	Timeout time.Duration
	// VisualizeDir, when set, receives porcupine's HTML visualization of every prefix whose
	// history is not linearizable (or could not be decided in time).
	VisualizeDir string
}

// Check runs every checker: duplicates and identity linearizability.
func (r *Recorder) Check(timeout time.Duration) Report {
	return r.CheckWith(CheckOptions{Timeout: timeout})
}

// CheckWith is Check with options.
func (r *Recorder) CheckWith(opts CheckOptions) Report {
	s := r.snapshot()
	var rep Report
	for _, op := range s.identities {
		switch {
		case op.claim:
			switch {
			case op.outcome != Acknowledged:
				rep.ClaimsUnknown++
			case op.claimWon:
				rep.ClaimsWon++
			default:
				rep.ClaimsLost++
			}
			continue
		case op.seed:
			if op.outcome != Acknowledged {
				rep.UnknownOps++
			}
			continue
		}
		rep.IdentityOps++
		rep.Retries += op.attempts - 1
		if op.outcome == Acknowledged {
			rep.Identities += int(op.last - op.first + 1 - int64(len(op.skipped)))
		} else {
			rep.UnknownOps++
		}
	}
	rep.ServerSideIDs, rep.GUIDs, rep.HiLoRanges = len(s.serverSide), len(s.guids), len(s.hilo)
	rep.IDs = rep.Identities + rep.ServerSideIDs + rep.GUIDs
	rep.Duplicates, rep.DuplicateExamples = s.duplicates()
	rep.LinearizabilityProblems = s.linearizability(opts)
	rep.Linearizable = len(rep.LinearizabilityProblems) == 0
	return rep
}

// Duplicates counts values handed out more than once, over every kind of ID, with examples.
func (r *Recorder) Duplicates() (int, []string) {
	s := r.snapshot()
	return s.duplicates()
}

// Linearizable checks every prefix's identity history within timeout and returns nil, or
// what is wrong.
func (r *Recorder) Linearizable(timeout time.Duration) error {
	s := r.snapshot()
	if problems := s.linearizability(CheckOptions{Timeout: timeout}); len(problems) > 0 {
		return errors.New(strings.Join(problems, "\n"))
	}
	return nil
}

// span is a block of numbers [low, high] and where it came from, for overlap checks.
type span struct {
	low, high int64
	what      string
}

// overlaps counts, in spans of one namespace, the numbers covered more than once (a number
// in n spans counts n-1 times) and describes the first few overlaps.
func overlaps(spans []span, namespace string, examples *[]string) int {
	slices.SortFunc(spans, func(a, b span) int {
		return cmp.Or(cmp.Compare(a.low, b.low), cmp.Compare(a.high, b.high))
	})
	// Every earlier span starts at or below sp.low, so what they cover at or above sp.low is
	// one block, up to the highest end among them: the overlap is easy to count.
	total := 0
	maxHigh, maxAt := int64(0), -1
	for i, sp := range spans {
		if maxAt >= 0 && sp.low <= maxHigh {
			n := min(sp.high, maxHigh) - sp.low + 1
			total += int(n)
			if len(*examples) < maxExamples {
				*examples = append(*examples, fmt.Sprintf("%s: %s repeats %d number(s) of %s", namespace, sp.what, n, spans[maxAt].what))
			}
		}
		if maxAt < 0 || sp.high > maxHigh {
			maxHigh, maxAt = sp.high, i
		}
	}
	return total
}

func (s snapshot) duplicates() (int, []string) {
	var examples []string
	total := 0

	// Identity values and values won by claims, per case-folded prefix.
	byPrefix := map[string][]span{}
	for _, op := range s.identities {
		if op.outcome != Acknowledged {
			continue
		}
		key := fold(op.prefix)
		switch {
		case op.increment():
			byPrefix[key] = append(byPrefix[key], handedOutRuns(op)...)
		case op.claim && op.claimWon:
			for _, v := range op.claimValues {
				byPrefix[key] = append(byPrefix[key], span{v, v, fmt.Sprintf("claim #%d of %v by %q", op.seq, op.claimValues, op.claimOwner)})
			}
		}
	}
	for _, key := range slices.Sorted(maps.Keys(byPrefix)) {
		total += overlaps(byPrefix[key], "identity "+key, &examples)
	}

	// Server-side IDs: the strings, then the etag numbers of each node among distinct
	// strings (one etag under two prefixes is a repeat too).
	seen := map[string]int{}
	byTag := map[string][]span{}
	for _, rec := range s.serverSide {
		seen[rec.ID]++
		if seen[rec.ID] > 1 {
			total++
			if len(examples) < maxExamples {
				examples = append(examples, fmt.Sprintf("server-side ID %s received %d times", rec.ID, seen[rec.ID]))
			}
			continue
		}
		e := int64(rec.Etag)
		byTag[rec.Tag] = append(byTag[rec.Tag], span{e, e, rec.ID})
	}
	for _, tag := range slices.Sorted(maps.Keys(byTag)) {
		total += overlaps(byTag[tag], "etag of node "+tag, &examples)
	}

	// GUIDs (canonical form is lower case; compare case-insensitively anyway).
	guids := map[string]int{}
	for _, g := range s.guids {
		key := strings.ToLower(g)
		guids[key]++
		if guids[key] > 1 {
			total++
			if len(examples) < maxExamples {
				examples = append(examples, fmt.Sprintf("GUID %s received %d times", g, guids[key]))
			}
		}
	}

	// HiLo ranges: pairwise disjoint per case-folded tag, as a set of intervals. Nothing is
	// assumed about their order: with HiLo pools each node grants from its own pool, so a
	// range granted later (by another node) may lie below an earlier one.
	byHiLo := map[string][]span{}
	for _, h := range s.hilo {
		key := fold(h.Tag)
		byHiLo[key] = append(byHiLo[key], span{h.Low, h.High, fmt.Sprintf("range [%d, %d]", h.Low, h.High)})
	}
	for _, key := range slices.Sorted(maps.Keys(byHiLo)) {
		total += overlaps(byHiLo[key], "HiLo "+key, &examples)
	}
	return total, examples
}

// handedOutRuns is what an acknowledged increment handed out: first … last split around its
// skipped values into runs of consecutive values, each described as the whole block.
func handedOutRuns(op identitySnapshot) []span {
	what := fmt.Sprintf("%s| [%d, %d] (op #%d)", op.prefix, op.first, op.last, op.seq)
	if len(op.skipped) > 0 {
		what = fmt.Sprintf("%s| [%d, %d] skipping %v (op #%d)", op.prefix, op.first, op.last, op.skipped, op.seq)
	}
	var runs []span
	low := op.first
	for _, v := range op.skipped {
		if v > low {
			runs = append(runs, span{low, v - 1, what})
		}
		low = v + 1
	}
	if low <= op.last {
		runs = append(runs, span{low, op.last, what})
	}
	return runs
}

// EtagsIncreasing checks node tag's server-side IDs: when a call that returned etag a was
// answered before another call was sent, that call's etag must be greater than a. (Order of
// acknowledgement is all a client can see; concurrent calls may be numbered either way.)
func (r *Recorder) EtagsIncreasing(tag string) error {
	s := r.snapshot()
	var recs []ServerSideRecord
	for _, rec := range s.serverSide {
		if rec.Tag == tag {
			recs = append(recs, rec)
		}
	}
	byReturn := slices.Clone(recs)
	slices.SortStableFunc(byReturn, func(a, b ServerSideRecord) int { return cmp.Compare(a.Return, b.Return) })
	byCall := recs
	slices.SortStableFunc(byCall, func(a, b ServerSideRecord) int { return cmp.Compare(a.Call, b.Call) })

	var (
		problems []string
		bad      int
		best     *ServerSideRecord // highest etag among calls answered so far
		next     int
	)
	for i := range byCall {
		b := &byCall[i]
		for next < len(byReturn) && byReturn[next].Return < b.Call {
			if best == nil || byReturn[next].Etag > best.Etag {
				best = &byReturn[next]
			}
			next++
		}
		if best != nil && best.Etag >= b.Etag {
			bad++
			if len(problems) < maxExamples {
				problems = append(problems, fmt.Sprintf("%s (answered at %v) came before %s (sent at %v)",
					best.ID, best.Return, b.ID, b.Call))
			}
		}
	}
	if bad > 0 {
		return fmt.Errorf("node %s: %d server-side ID(s) not above an etag acknowledged before they were asked for: %s",
			tag, bad, strings.Join(problems, "; "))
	}
	return nil
}

// linearizability checks each prefix's history and returns one line per prefix that fails.
func (s snapshot) linearizability(opts CheckOptions) []string {
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	deadline := time.Now().Add(timeout)
	byPrefix := map[string][]identitySnapshot{}
	for _, op := range s.identities {
		key := fold(op.prefix)
		byPrefix[key] = append(byPrefix[key], op)
	}
	var problems []string
	for _, key := range slices.Sorted(maps.Keys(byPrefix)) {
		ops := byPrefix[key]
		forcedSeed := slices.ContainsFunc(ops, func(op identitySnapshot) bool { return op.seed && op.seedForce })
		nm := counterModel(!forcedSeed)
		model := nm.ToModel()
		history, unknown := porcupineHistory(ops)
		left := time.Until(deadline)
		if left <= 0 {
			problems = append(problems, fmt.Sprintf("prefix %q: not checked, the %v for the linearizability check ran out", key, timeout))
			continue
		}
		var (
			res  porcupine.CheckResult
			info porcupine.LinearizationInfo
		)
		if opts.VisualizeDir == "" {
			res = porcupine.CheckOperationsTimeout(model, history, left)
		} else { // slower on failure: it also finds the longest partial linearizations
			res, info = porcupine.CheckOperationsVerbose(model, history, left)
		}
		switch res {
		case porcupine.Ok:
			continue
		case porcupine.Unknown:
			problems = append(problems, fmt.Sprintf("prefix %q: undecided after %v (%d operations, %d with unknown outcome): treated as a failure",
				key, timeout, len(history), unknown))
		default:
			msg := fmt.Sprintf("prefix %q: %d operations (%d with unknown outcome) have no linearization", key, len(history), unknown)
			if w := realTimeWitness(ops); w != "" {
				msg += "; e.g. " + w
			}
			problems = append(problems, msg)
		}
		if opts.VisualizeDir != "" {
			path := filepath.Join(opts.VisualizeDir, "identity-"+safeFileName(key)+".html")
			if err := os.MkdirAll(opts.VisualizeDir, 0o755); err == nil {
				if err := porcupine.VisualizePath(model, info, path); err == nil {
					problems[len(problems)-1] += " (visualization: " + path + ")"
				}
			}
		}
	}
	return problems
}

// porcupineHistory turns one prefix's operations into porcupine's; operations without an
// answer return after everything else.
func porcupineHistory(ops []identitySnapshot) ([]porcupine.Operation, int) {
	var latest time.Duration
	for _, op := range ops {
		latest = max(latest, op.call)
		if op.outcome == Acknowledged {
			latest = max(latest, op.ret)
		}
	}
	never := int64(latest) + 1
	history := make([]porcupine.Operation, 0, len(ops))
	unknown := 0
	for i, op := range ops {
		known := op.outcome == Acknowledged
		ret := int64(op.ret)
		if !known {
			ret = never
			unknown++
		}
		in := opInput{seed: op.seed, claim: op.claim, count: op.count, value: op.seedValue, force: op.seedForce, values: op.claimValues, known: known}
		out := opOutput{first: op.first, last: op.last, skipped: op.skipped, value: op.seedResult, won: op.claimWon}
		history = append(history, porcupine.Operation{ClientId: i, Input: in, Call: int64(op.call), Output: out, Return: ret})
	}
	return history, unknown
}

// realTimeWitness finds the plainest kind of violation to quote: an increment answered
// before another was sent, that got values at or above the later one's. It only looks when
// no forced seed could legitimately lower the counter.
func realTimeWitness(ops []identitySnapshot) string {
	var inc []identitySnapshot
	for _, op := range ops {
		if op.seed && op.seedForce {
			return ""
		}
		if op.increment() && op.outcome == Acknowledged {
			inc = append(inc, op)
		}
	}
	byRet := slices.Clone(inc)
	slices.SortFunc(byRet, func(a, b identitySnapshot) int { return cmp.Compare(a.ret, b.ret) })
	slices.SortFunc(inc, func(a, b identitySnapshot) int { return cmp.Compare(a.call, b.call) })
	var best *identitySnapshot
	next := 0
	for i := range inc {
		b := &inc[i]
		for next < len(byRet) && byRet[next].ret < b.call {
			if best == nil || byRet[next].last > best.last {
				best = &byRet[next]
			}
			next++
		}
		if best != nil && b.first <= best.last {
			return fmt.Sprintf("op #%d got [%d, %d] at %v, then op #%d sent at %v got [%d, %d]",
				best.seq, best.first, best.last, best.ret, b.seq, b.call, b.first, b.last)
		}
	}
	return ""
}

func safeFileName(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, s)
}
