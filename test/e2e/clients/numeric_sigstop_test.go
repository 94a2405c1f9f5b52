package clients

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idnode/idnode/flakelease"
	"github.com/idnode/idnode/fsm"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
)

// Bounds of the SIGSTOP test.
const (
	sigstopLease    = fsm.MinWorkerLeaseMs * time.Millisecond // the shortest lease: the pause outlasts it soonest
	sigstopMinted   = 1000                                    // IDs a process mints before the next step
	sigstopProgress = 30 * time.Second                        // polling a process's file for them
	sigstopLapse    = sigstopLease + 15*time.Second           // polling the cluster until the frozen lease lapsed
)

// TestNumericGeneratorFrozenPastItsLease: a process minting with the client's NumericGenerator
// is frozen (SIGSTOP) until its worker lease has lapsed by the cluster's clock; a second
// process is then given the same worker, at a higher epoch, and mints; then the first
// resumes (SIGCONT). The first must not mint one more ID under its old lease — its clock is
// far past the lease's local end, and a renewal now finds the worker fenced — and goes on
// under a new worker. Across both: no ID twice, each process's IDs increasing, each ID in a
// grant its process held, and the two grants of the worker over disjoint times.
//
// What it catches: a generator that ignores its lease's expiry (Snowflake with a worker ID
// assigned once, and nothing else between two processes that share it) mints on under the
// old worker from the moment it resumes, at the current time, which lies in the second
// process's grant: the first process's IDs of that worker are then above the second's floor
// (checked below), outside every grant the first was given (checkMinted), and equal to the
// second's whenever both minted in the same millisecond with the same sequence. Tried with
// flake.Generator.Next made to skip its ValidUntil and MaxTick checks: in the milliseconds
// between SIGCONT and the renewal that found the worker fenced, the first process minted 50
// IDs of worker 0 that the second had minted too, and this test failed on all three counts.
func TestNumericGeneratorFrozenPastItsLease(t *testing.T) {
	t.Parallel()
	c := e2etest.StartCluster(t)
	addrs := c.GRPCAddrs()
	dir := t.TempDir()
	outs := []string{filepath.Join(dir, "first.txt"), filepath.Join(dir, "second.txt")}
	lease := "-lease=" + sigstopLease.String()

	first := e2etest.StartFlakeMinter(t, "first", addrs, outs[0], lease)
	// Minting, and renewed at least once: a renewal's grant has a higher MaxMs.
	r1 := waitMinted(t, "first", outs[0], func(r e2etest.MintedRun) error {
		order, by := r.Grants()
		switch {
		case len(order) == 0 || r.Ids() < sigstopMinted:
			return fmt.Errorf("%d of %d IDs", r.Ids(), sigstopMinted)
		case by[order[0]].MaxMs == firstGrant(r).MaxMs:
			return errors.New("its lease not renewed yet")
		}
		return nil
	})
	old := firstGrant(r1)
	t.Logf("first: worker %d epoch %d, %d IDs", old.Worker, old.Epoch, r1.Ids())

	first.Sigstop()
	frozen := time.Now()
	// The worker is free once its lease lapsed by the log's clock: the leader's, this machine's.
	e2etest.Eventually(t, sigstopLapse, "the frozen process's lease lapses", func() error {
		wl, err := workerLease(c, old.Worker)
		if err != nil {
			return err
		}
		if wl.GetEpoch() != old.Epoch {
			return fmt.Errorf("worker %d has epoch %d, the frozen process's is %d: renewed or taken while it was frozen", old.Worker, wl.GetEpoch(), old.Epoch)
		}
		if now := time.Now().UnixMilli(); wl.GetExpiresAtMs() >= now {
			return fmt.Errorf("worker %d leased until %d, now %d", old.Worker, wl.GetExpiresAtMs(), now)
		}
		return nil
	})
	t.Logf("lease lapsed %v after SIGSTOP", time.Since(frozen).Round(time.Millisecond))

	second := e2etest.StartFlakeMinter(t, "second", addrs, outs[1], lease)
	r2 := waitMinted(t, "second", outs[1], func(r e2etest.MintedRun) error {
		if n := r.Ids(); n < sigstopMinted {
			return fmt.Errorf("%d of %d IDs", n, sigstopMinted)
		}
		return nil
	})
	recycled := firstGrant(r2)
	if recycled.Worker != old.Worker || recycled.Epoch <= old.Epoch {
		t.Fatalf("second process got worker %d epoch %d; want the lapsed worker %d recycled, at an epoch above %d", recycled.Worker, recycled.Epoch, old.Worker, old.Epoch)
	}

	first.Sigcont()
	t.Logf("SIGCONT after %v frozen", time.Since(frozen).Round(time.Millisecond))
	waitMinted(t, "first, resumed", outs[0], func(r e2etest.MintedRun) error {
		if n := idsNotOf(r, old.Worker); n < sigstopMinted {
			return fmt.Errorf("%d of %d IDs under a new worker", n, sigstopMinted)
		}
		return nil
	})
	first.Stop()
	second.Stop()

	runs := make([]e2etest.MintedRun, len(outs))
	for i, label := range []string{"first", "second"} {
		var err error
		if runs[i], err = e2etest.ReadMinted(label, outs[i]); err != nil {
			t.Fatal(err)
		}
	}
	check := e2etest.CheckMinted(runs)
	for _, p := range check.Problems {
		t.Error(p)
	}
	t.Logf("first and second: %v", check)

	// The first process's IDs of the recycled worker are all at or below the second's floor.
	for _, e := range runs[0].Events {
		if e.IsID() && uint32(e.Parts.Worker) == old.Worker && e.Parts.Time.UnixMilli() > recycled.MinMs {
			t.Fatalf("first process minted %d (%v) with worker %d at %d ms, above the floor %d ms of the second process's grant (epoch %d): minted into its time",
				e.Id, e.Parts, old.Worker, e.Parts.Time.UnixMilli(), recycled.MinMs, recycled.Epoch)
		}
	}
	// Whether the resumed process saw a refusal depends on which of its goroutines ran first:
	// its minting loop, finding the lease past its local end, or its renewal, which found the
	// worker fenced and leased another before the loop asked for an ID (a loop held up for
	// those two calls on a loaded machine). Both are right, so the refusal is only told; a
	// process minting on under its old lease is caught above. flakelease's
	// TestMinterStopsAtTheLeasesEnd shows the refusal on a clock it owns.
	if refusal := refusalBeforeNewWorker(runs[0], old.Worker); refusal != "" {
		t.Logf("first, resumed: %q, then a new worker", refusal)
	} else {
		t.Logf("first, resumed: a new worker before its next ID, with no refusal in between")
	}
}

// waitMinted polls a flakeminter's file until ready accepts what it wrote, and returns that.
func waitMinted(t *testing.T, label, path string, ready func(e2etest.MintedRun) error) e2etest.MintedRun {
	t.Helper()
	var r e2etest.MintedRun
	e2etest.Eventually(t, sigstopProgress, label+" mints", func() error {
		var err error
		if r, err = e2etest.ReadMinted(label, path); err != nil {
			return err
		}
		return ready(r)
	})
	return r
}

// firstGrant is the first lease line of a run (the zero Grant if none).
func firstGrant(r e2etest.MintedRun) flakelease.Grant {
	for _, e := range r.Events {
		if e.Grant != nil {
			return *e.Grant
		}
	}
	return flakelease.Grant{}
}

// idsNotOf counts a run's IDs of workers other than worker.
func idsNotOf(r e2etest.MintedRun, worker uint32) int {
	n := 0
	for _, e := range r.Events {
		if e.IsID() && uint32(e.Parts.Worker) != worker {
			n++
		}
	}
	return n
}

// refusalBeforeNewWorker is the last refusal between the run's last ID of worker and its
// first ID of another worker after it, or "" if there is none.
func refusalBeforeNewWorker(r e2etest.MintedRun, worker uint32) string {
	last := -1
	for i, e := range r.Events {
		if e.IsID() && uint32(e.Parts.Worker) == worker {
			last = i
		}
	}
	refusal := ""
	for _, e := range r.Events[last+1:] {
		if e.Err != "" && (strings.Contains(e.Err, "expired") || strings.Contains(e.Err, "lost")) {
			refusal = e.Err
		}
		if e.IsID() {
			return refusal
		}
	}
	return ""
}

// workerLease is the cluster's lease of worker in the default database.
func workerLease(c *e2etest.Cluster, worker uint32) (*idnodev1.WorkerLease, error) {
	ctx, cancel := context.WithTimeout(context.Background(), e2etest.RPCTimeout)
	defer cancel()
	resp, err := c.Ids[e2etest.ClusterTags[0]].ListWorkers(ctx, &idnodev1.ListWorkersRequest{})
	if err != nil {
		return nil, err
	}
	for _, wl := range resp.GetWorkers() {
		if wl.GetWorker() == worker {
			return wl, nil
		}
	}
	return nil, fmt.Errorf("worker %d not in ListWorkers (%d workers)", worker, len(resp.GetWorkers()))
}
