package clients

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idnode/idnode/client"
	"github.com/idnode/idnode/test/e2e/e2etest"
)

// TestClientGeneratorSurvivesLeaderFailover: callers keep taking HiLo IDs through a client
// dialed to all three nodes while the leader is killed with SIGKILL (its connections die) or
// frozen with SIGSTOP (its connections stay up and answer nothing: the client's per-attempt
// timeout moves on). A majority stays up, so no caller may see an error; no ID may be handed
// out twice. Callers cycle through new collections (a new one every 300 IDs) besides one
// long-lived collection, so ranges are fetched all the time — first ranges that callers wait
// for, and prefetches — also during the election.
func TestClientGeneratorSurvivesLeaderFailover(t *testing.T) {
	for _, mode := range []string{"kill-9", "SIGSTOP"} {
		t.Run(mode, func(t *testing.T) { clientFailover(t, mode) })
	}
}

func clientFailover(t *testing.T, mode string) {
	c := e2etest.StartCluster(t)
	var addrs []string
	for _, p := range c.Nodes {
		addrs = append(addrs, p.GRPCAddr)
	}
	cl, err := client.Dial(context.Background(), addrs, client.WithCallTimeout(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := cl.Close(e2etest.RPCCtx(t)); err != nil {
			t.Errorf("Close: %v", err)
		}
	}()

	const (
		workers      = 8
		maxPerWorker = 1_000_000 // bounds the loop; the test stops the workers long before
		perTag       = 300
		callBudget   = 30 * time.Second // one NextID, waiting for a range included
	)
	var (
		total atomic.Int64
		stop  = make(chan struct{})
		wg    sync.WaitGroup
		mu    sync.Mutex
		errs  []error
		ids   = make([][]string, workers)
	)
	for w := range workers {
		wg.Go(func() {
			for i := range maxPerWorker {
				select {
				case <-stop:
					return
				default:
				}
				collection := "orders"
				if i%2 == 1 {
					collection = "t" + strconv.FormatInt(total.Load()/perTag, 10)
				}
				ctx, cancel := context.WithTimeout(context.Background(), callBudget)
				id, err := cl.NextID(ctx, collection)
				cancel()
				if err != nil {
					mu.Lock()
					errs = append(errs, fmt.Errorf("worker %d, call %d, NextID(%s): %w", w, i, collection, err))
					mu.Unlock()
					return
				}
				ids[w] = append(ids[w], id)
				total.Add(1)
			}
		})
	}
	stopped := false
	finish := func() {
		if !stopped {
			stopped = true
			close(stop)
			wg.Wait()
		}
	}
	defer finish()
	waitTotal := func(n int64, what string) {
		t.Helper()
		e2etest.Eventually(t, e2etest.LoadTimeout, what, func() error {
			mu.Lock()
			defer mu.Unlock()
			if len(errs) > 0 {
				t.Fatalf("a caller got an error: %v", errs[0])
			}
			if got := total.Load(); got < n {
				return fmt.Errorf("%d IDs so far", got)
			}
			return nil
		})
	}

	waitTotal(5000, "5000 IDs before the kill")
	leader := c.Leader()
	atKill := total.Load()
	killedAt := time.Now()
	if mode == "kill-9" {
		c.Node(leader).Kill9()
	} else {
		c.Node(leader).Sigstop() // the cleanup's SIGKILL ends it
	}
	t.Logf("%s to leader %s after %d IDs", mode, leader, atKill)
	newLeader := c.Leader(c.Others(leader)...)
	waitTotal(atKill+10*perTag*2, "IDs from new collections after the failover")
	t.Logf("new leader %s; %d IDs %v after the %s", newLeader, total.Load()-atKill, time.Since(killedAt).Round(time.Millisecond), mode)
	finish()

	mu.Lock()
	defer mu.Unlock()
	for _, err := range errs {
		t.Errorf("caller error while a majority was up: %v", err)
	}
	re := regexp.MustCompile(`^(orders|t[0-9]+)/[0-9]+-[ABC]$`)
	seen := map[string]bool{}
	byServer := map[string]int{}
	for _, list := range ids {
		for _, id := range list {
			if !re.MatchString(id) {
				t.Fatalf("ID %q does not match %v", id, re)
			}
			if seen[id] {
				t.Fatalf("ID %q handed out twice", id)
			}
			seen[id] = true
			byServer[id[len(id)-1:]]++
		}
	}
	t.Logf("%d distinct IDs; ranges granted by %v", len(seen), byServer)
	if byServer[newLeader] == 0 {
		t.Errorf("no ID from a range granted by the new leader %s", newLeader)
	}
}
