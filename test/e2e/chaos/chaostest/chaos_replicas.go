package chaostest

// Replica checks through the chaos schedules (docs/replica-checks.md). Every node of a chaos
// cluster compares replicas at the shortest interval a node takes (the override sets it), so
// whichever node leads marks the log and compares the members' digests every few seconds
// through every fault. A watcher reads each node's last comparison from its Status while the
// schedule runs; at the end, with every node back, the suite has the leader compare once more
// and reads every node's idnode_replica_digest_mismatches. No fault the suite injects changes
// a replica's state behind the log's back, so a member found differing is a false alarm or a
// real divergence, and fails the schedule either way. The schedule's line says how many
// comparisons were seen and how many members differed in them.

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"sync"
	"time"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/server"
	"github.com/idnode/idnode/test/e2e/e2etest"
)

const (
	// chaosReplicaCheckInterval is every node's --replica-check-interval: the shortest a node
	// accepts, so a schedule of a minute holds a dozen comparisons.
	chaosReplicaCheckInterval = server.MinReplicaCheckInterval
	// chaosReplicaWatchEvery is how often the watcher reads every node's last comparison: well
	// within the interval, so it sees each comparison before the next replaces it.
	chaosReplicaWatchEvery = time.Second
	// chaosReplicaCheckTimeout bounds the last comparison: the leader waits for each member's
	// digest in turn.
	chaosReplicaCheckTimeout = 30 * time.Second
	// chaosMetricsMaxBytes bounds a /metrics page read.
	chaosMetricsMaxBytes = 8 << 20
	// chaosMetricsPortOffset is how far a node's published metrics port is from its gRPC port.
	chaosMetricsPortOffset = 2030
)

// mismatchesSample is idnode_replica_digest_mismatches in a node's /metrics.
var mismatchesSample = regexp.MustCompile(`(?m)^idnode_replica_digest_mismatches (\S+)$`)

// replicaWatch collects the comparisons the nodes made during one schedule, by mark: a mark
// is a log index, so the same comparison read from a node twice counts once.
type replicaWatch struct {
	mu    sync.Mutex
	marks map[uint64]*idnodev1.ReplicaCheck

	stop context.CancelFunc
	done chan struct{}
}

// watchReplicas starts reading every node's last comparison every chaosReplicaWatchEvery,
// until finish.
func (r *ChaosRun) watchReplicas() *replicaWatch {
	ctx, cancel := context.WithCancel(context.Background())
	w := &replicaWatch{marks: map[uint64]*idnodev1.ReplicaCheck{}, stop: cancel, done: make(chan struct{})}
	go func() {
		defer close(w.done)
		t := time.NewTicker(chaosReplicaWatchEvery)
		defer t.Stop()
		for {
			var wg sync.WaitGroup
			for _, tag := range r.Tags() {
				wg.Go(func() { w.readFrom(ctx, r, tag) })
			}
			wg.Wait()
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return w
}

// readFrom records node tag's last comparison, if it made one; a node that is down, cut off
// or frozen is read at a later round.
func (w *replicaWatch) readFrom(ctx context.Context, r *ChaosRun, tag string) {
	ctx, cancel := context.WithTimeout(ctx, chaosReplicaWatchEvery)
	defer cancel()
	st, err := r.c.admin[tag].Status(ctx, &idnodev1.StatusRequest{})
	if err == nil && st.GetReplicaCheck() != nil {
		w.record(st.GetReplicaCheck())
	}
}

func (w *replicaWatch) record(rc *idnodev1.ReplicaCheck) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.marks[rc.GetIndex()] = rc
}

// finish stops the watcher and waits for it.
func (w *replicaWatch) finish() {
	w.stop()
	<-w.done
}

// counts is how many comparisons were seen, and how many members differed in them all.
func (w *replicaWatch) counts() (checks, mismatches int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, rc := range w.marks {
		mismatches += int(rc.GetMismatches())
	}
	return len(w.marks), mismatches
}

// differing describes every comparison in which a member differed.
func (w *replicaWatch) differing() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for _, rc := range w.marks {
		if rc.GetMismatches() > 0 {
			out = append(out, fmt.Sprintf("replica check at mark %d: %d members differ (%v)", rc.GetIndex(), rc.GetMismatches(), rc.GetMembers()))
		}
	}
	return out
}

// verifyReplicas has the leader compare once more, after recovery, until every live node
// reports its digest, stops the watcher, and reads every live node's mismatch gauge. It
// returns the problems: a member that differed in any comparison, a comparison the leader
// could not make, a gauge above 0.
func (r *ChaosRun) verifyReplicas() []string {
	t := r.T
	t.Helper()
	began := time.Now()
	e2etest.Eventually(t, ChaosRecoverWait, "a replica check with every live node reporting its digest", func() error {
		ctx, cancel := context.WithTimeout(context.Background(), chaosReplicaCheckTimeout)
		defer cancel()
		rc, err := r.c.admin[r.live()[0]].CheckReplicas(ctx, &idnodev1.CheckReplicasRequest{})
		if err != nil {
			return err
		}
		r.replicas.record(rc)
		return r.notReporting(rc)
	})
	final := time.Since(began)
	var problems []string
	r.replicas.finish()
	problems = append(problems, r.replicas.differing()...)
	for _, tag := range r.live() {
		if v, err := r.mismatchGauge(tag); err != nil {
			problems = append(problems, err.Error())
		} else if v != 0 {
			problems = append(problems, fmt.Sprintf("node %s: idnode_replica_digest_mismatches is %v after recovery", tag, v))
		}
	}
	checks, mismatches := r.replicas.counts()
	t.Logf("replica checks: %d seen, %d members differing; the last one, every live node reporting, took %v; the checks after recovery %v",
		checks, mismatches, final.Round(10*time.Millisecond), time.Since(began).Round(10*time.Millisecond))
	return problems
}

// notReporting names the live nodes that gave no digest in rc, nil when every one did.
func (r *ChaosRun) notReporting(rc *idnodev1.ReplicaCheck) error {
	reported := map[string]bool{}
	for _, m := range rc.GetMembers() {
		reported[m.GetTag()] = len(m.GetDigest()) > 0
	}
	var missing []string
	for _, tag := range r.live() {
		if !reported[tag] {
			missing = append(missing, tag)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("mark %d: no digest from %v (%v)", rc.GetIndex(), missing, rc.GetMembers())
	}
	return nil
}

// mismatchGauge reads idnode_replica_digest_mismatches from node tag's published metrics port.
func (r *ChaosRun) mismatchGauge(tag string) (float64, error) {
	addr := fmt.Sprintf("127.0.0.1:%d", r.Cluster.node(tag).port+chaosMetricsPortOffset)
	ctx, cancel := context.WithTimeout(context.Background(), e2etest.RPCTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/metrics", nil)
	if err != nil {
		return 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, fmt.Errorf("node %s: GET /metrics: %w", tag, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, chaosMetricsMaxBytes))
	if err != nil {
		return 0, fmt.Errorf("node %s: GET /metrics: %w", tag, err)
	}
	m := mismatchesSample.FindSubmatch(body)
	if m == nil {
		return 0, fmt.Errorf("node %s: /metrics has no idnode_replica_digest_mismatches", tag)
	}
	return strconv.ParseFloat(string(m[1]), 64)
}
