package chaostest

// What a node decides alone besides the load's server-side IDs, GUIDs and HiLo pools: semantic
// IDs (echoed after validation) and numeric IDs minted under the node's own worker lease of
// the database (docs/numeric-ids.md, "Minted by a node"). A node cut off from its majority
// keeps both, numeric IDs until its lease ends; the region schedule asks every node for them
// before, during and after a region is cut off. Every numeric ID a node minted is kept, and
// after recovery no two may be equal, whichever nodes minted them.

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
)

const (
	chaosSemanticID = "users/ayende@ayende.com" // a semantic ID: any node echoes it
	chaosNumericAsk = 3                         // numeric IDs per call
)

// numericIDs are the numeric IDs the schedule was given, and by which node.
type numericIDs struct {
	mu    sync.Mutex
	by    map[int64]string // ID → the node that minted it, the first time it was seen
	total int              // IDs received, repeats included
	twice []string         // IDs received twice, up to chaosPoolShown
}

// AnswersAlone asks each node of tags, only it and all at once, for a semantic ID and for
// chaosNumericAsk numeric IDs, each within chaosLocalWait, and fails the test unless every one
// answers both. Before a fault the first numeric call takes the node's worker lease through
// the leader; during it, a node without a majority mints under the lease it holds.
func (r *ChaosRun) AnswersAlone(phase string, tags ...string) {
	r.T.Helper()
	errs := make([]error, len(tags))
	var wg sync.WaitGroup
	for i, tag := range tags {
		wg.Go(func() { errs[i] = errors.Join(r.semantic(tag), r.numeric(tag)) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		r.T.Fatalf("%s: %v", phase, err)
	}
	r.T.Logf("%s: semantic and numeric IDs answered by %s", phase, JoinTags(tags))
}

// chaosLeaseBack bounds the wait, after a heal, for a node whose worker lease for numeric IDs
// ran out while it was cut off to mint again: it renews at its next attempt, a tenth of the
// lease (3 s) after its last failed one, through a leader that may still be settling.
const chaosLeaseBack = 15 * time.Second

// MintsAgain waits until each node of tags mints numeric IDs again after a heal, within
// chaosLeaseBack, and logs how long that took. A cut that outlasts the nodes' leases (the
// region schedule holds one for 30 s, a lease's length) leaves them refusing numeric IDs
// until their next renewal, which the phase after the heal must not take for a fault.
func (r *ChaosRun) MintsAgain(phase string, tags ...string) {
	r.T.Helper()
	began := time.Now()
	for _, tag := range tags {
		e2etest.Eventually(r.T, chaosLeaseBack, phase+": node "+tag+" mints numeric IDs again", func() error { return r.numeric(tag) })
	}
	r.T.Logf("%s: numeric IDs minted again by %s after %v", phase, JoinTags(tags), time.Since(began).Round(time.Millisecond))
}

func (r *ChaosRun) semantic(tag string) error {
	ctx, cancel := context.WithTimeout(context.Background(), chaosLocalWait)
	defer cancel()
	begin := time.Now()
	resp, err := r.c.ids[tag].Generate(ctx, &idnodev1.GenerateRequest{Id: chaosSemanticID})
	switch {
	case err != nil:
		return fmt.Errorf("Generate(%s) via %s, after %v: %w", chaosSemanticID, tag, time.Since(begin).Round(time.Millisecond), err)
	case len(resp.GetIds()) != 1 || resp.GetIds()[0] != chaosSemanticID:
		return fmt.Errorf("Generate(%s) via %s = %q: want it echoed", chaosSemanticID, tag, resp.GetIds())
	}
	return nil
}

func (r *ChaosRun) numeric(tag string) error {
	ctx, cancel := context.WithTimeout(context.Background(), chaosLocalWait)
	defer cancel()
	begin := time.Now()
	resp, err := r.c.ids[tag].Generate(ctx, &idnodev1.GenerateRequest{Numeric: true, Count: chaosNumericAsk})
	if err != nil {
		return fmt.Errorf("Generate(numeric, count %d) via %s, after %v: %w", chaosNumericAsk, tag, time.Since(begin).Round(time.Millisecond), err)
	}
	if len(resp.GetIds()) != chaosNumericAsk {
		return fmt.Errorf("Generate(numeric, count %d) via %s = %q", chaosNumericAsk, tag, resp.GetIds())
	}
	r.minted.mu.Lock()
	defer r.minted.mu.Unlock()
	if r.minted.by == nil {
		r.minted.by = map[int64]string{}
	}
	for _, s := range resp.GetIds() {
		id, err := strconv.ParseInt(s, 10, 64)
		if err != nil || id <= 0 || strconv.FormatInt(id, 10) != s {
			return fmt.Errorf("Generate(numeric) via %s = %q: want positive decimal numbers", tag, resp.GetIds())
		}
		r.minted.total++
		if first, seen := r.minted.by[id]; seen {
			if len(r.minted.twice) < chaosPoolShown {
				r.minted.twice = append(r.minted.twice, fmt.Sprintf("%d from %s and from %s", id, first, tag))
			}
			continue
		}
		r.minted.by[id] = tag
	}
	return nil
}

// verifyNumeric, after recovery, has every live node mint again and returns the problems:
// an ID received twice. It adds numeric={…} to the schedule's line. Without numeric IDs in
// the schedule it does nothing.
func (r *ChaosRun) verifyNumeric() []string {
	r.minted.mu.Lock()
	asked := r.minted.by != nil
	r.minted.mu.Unlock()
	if !asked {
		return nil
	}
	var problems []string
	for _, tag := range r.live() {
		if err := r.numeric(tag); err != nil {
			problems = append(problems, "after recovery: "+err.Error())
		}
	}
	r.minted.mu.Lock()
	defer r.minted.mu.Unlock()
	duplicates := r.minted.total - len(r.minted.by)
	if duplicates > 0 {
		problems = append(problems, fmt.Sprintf("%d numeric IDs minted twice, e.g. %v", duplicates, r.minted.twice))
	}
	note := fmt.Sprintf("numeric={ids=%d duplicates=%d}", r.minted.total, duplicates)
	if r.Note != "" {
		note = r.Note + " " + note
	}
	r.Note = note
	return problems
}
