//go:build linux

package apps

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/status"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/reason"
	"github.com/idnode/idnode/test/e2e/e2etest"
	"github.com/idnode/idnode/test/helpers/netns"
	"github.com/idnode/idnode/test/helpers/poll"
)

// The partition's bounds.
const (
	// partitionHold is the shortest cut: past the cut node's heartbeat timeout (1 s on a LAN)
	// and its wait for an election (1 s), after which it refuses identities, and past a
	// client's per-attempt timeout (3 s), after which a client that sent a call to it has
	// moved on to another node.
	partitionHold = 5 * time.Second
	probeTimeout  = 2 * time.Second        // one identity call of the client beside the cut node
	probePause    = 100 * time.Millisecond // between two of its calls
	probeName     = "partition-probe"      // the identity counter it asks; no table uses it
)

// partitionReport is what cutting one node did.
type partitionReport struct {
	node        string
	cut, heal   time.Time
	held        time.Duration       // from the cut to the heal
	servedAfter time.Duration       // from the heal to the node's first identity answer
	caughtUp    uint64              // the leader's commit index after the heal, which the node applied
	apps        map[string]appInCut // by language

	// The client beside the cut node, during the cut (mu guards them while it runs).
	mu          sync.Mutex
	refused     map[string]int    // its calls refused, by code and reason
	firstErrors map[string]string // the first message of each of those
	answered    int               // its calls answered: want none
	noQuorumAt  time.Time         // its first NO_QUORUM refusal; zero before
}

// appInCut is what one application did while the node was cut off.
type appInCut struct {
	rows   int
	stall  time.Duration
	failed map[string]int    // failed batches by class
	first  map[string]string // the first message of each class
}

// partition cuts node tag off from the other nodes and from every client of the test's
// namespace, both ways (netns.Net.Cut), while a client beside it, inside its partition, asks
// it for identities. The cut holds until it has lasted partitionHold, the node has refused
// that client NO_QUORUM, and both applications have committed progressRows rows in every table
// through the majority; then it heals, and the node must answer identities again and apply
// what the leader committed meanwhile.
func (d *drill) partition(n *netns.Net, tag string) *partitionReport {
	t := d.t
	t.Helper()
	conn := e2etest.DialConn(t, d.c.Node(tag).GRPCAddr, grpc.WithContextDialer(n.Dialer(tag)))
	beside := idnodev1.NewIdServiceClient(conn)
	besideAdmin := idnodev1.NewClusterServiceClient(conn)
	poll.Until(t, "node "+tag+" answering a client beside it before the cut", progressWait, probePause, func() error {
		_, err := d.probe(beside)
		return err
	})

	r := &partitionReport{node: tag, refused: map[string]int{}, firstErrors: map[string]string{}}
	base := d.counts()
	r.cut = time.Now()
	n.Cut(tag)
	stop := make(chan struct{})
	var probing sync.WaitGroup
	probing.Go(func() { r.probeUntil(d, beside, stop) })
	poll.Until(t, fmt.Sprintf("node %s cut for %v, refusing a client beside it, the applications going on", tag, partitionHold),
		progressWait, 50*time.Millisecond, func() error {
			if held := time.Since(r.cut); held < partitionHold {
				return fmt.Errorf("cut for %v", held.Round(time.Millisecond))
			}
			r.mu.Lock()
			noQuorum := !r.noQuorumAt.IsZero()
			r.mu.Unlock()
			if !noQuorum {
				return fmt.Errorf("no NO_QUORUM refusal yet; the client beside it saw %v", r.refusals())
			}
			return d.committedSince(base)
		})
	r.heal = time.Now()
	n.Heal(tag)
	close(stop)
	probing.Wait()
	r.held = r.heal.Sub(r.cut)

	poll.Until(t, "node "+tag+" answering identities again", progressWait, probePause, func() error {
		_, err := d.probe(beside)
		return err
	})
	r.servedAfter = time.Since(r.heal)
	leader := d.leader()
	st, err := d.c.Admin[leader].Status(e2etest.RPCCtx(t), &idnodev1.StatusRequest{})
	if err != nil {
		t.Fatalf("Status via the leader %s: %v", leader, err)
	}
	r.caughtUp = st.GetCommitIndex()
	poll.Until(t, fmt.Sprintf("node %s applying the leader's index %d", tag, r.caughtUp), progressWait, probePause, func() error {
		st, err := besideAdmin.Status(e2etest.RPCCtx(t), &idnodev1.StatusRequest{})
		if err != nil {
			return err
		}
		if st.GetAppliedIndex() < r.caughtUp {
			return fmt.Errorf("applied index %d", st.GetAppliedIndex())
		}
		return nil
	})
	d.c.WaitServing(tag)

	r.apps = map[string]appInCut{}
	for _, a := range d.apps {
		rows, stall, failed, first := a.during(r.cut, r.heal)
		r.apps[a.lang] = appInCut{rows, stall, failed, first}
	}
	if r.answered > 0 {
		t.Errorf("node %s answered %d identity calls of the client beside it while cut off from the majority", tag, r.answered)
	}
	return r
}

// probe asks for one value of the probe's identity counter.
func (d *drill) probe(ids idnodev1.IdServiceClient) (*idnodev1.GenerateResponse, error) {
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	return ids.Generate(ctx, &idnodev1.GenerateRequest{Id: probeName + "|", RequestId: d.c.RequestID()})
}

// probeUntil asks the cut node for identities, one call at a time, until stop, and tallies
// the answers.
func (r *partitionReport) probeUntil(d *drill, beside idnodev1.IdServiceClient, stop <-chan struct{}) {
	for {
		_, err := d.probe(beside)
		r.mu.Lock()
		if err == nil {
			r.answered++
		} else {
			class := reason.CodeName(status.Code(err))
			if why := reason.Of(err); why != "" {
				class += "/" + why
			}
			r.refused[class]++
			if _, ok := r.firstErrors[class]; !ok {
				r.firstErrors[class] = err.Error()
			}
			if reason.Of(err) == reason.NoQuorum && r.noQuorumAt.IsZero() {
				r.noQuorumAt = time.Now()
			}
		}
		r.mu.Unlock()
		select {
		case <-stop:
			return
		case <-time.After(probePause):
		}
	}
}

// refusals is the probe's tally so far, as text.
func (r *partitionReport) refusals() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var parts []string
	for _, class := range slices.Sorted(maps.Keys(r.refused)) {
		parts = append(parts, fmt.Sprintf("%s: %d", class, r.refused[class]))
	}
	if len(parts) == 0 {
		return "no refusal"
	}
	return strings.Join(parts, ", ")
}

// log prints the figures.
func (r *partitionReport) log(d *drill) {
	t := d.t
	t.Helper()
	total := 0
	for _, n := range r.refused {
		total += n
	}
	t.Logf("partition: node %s cut off from both other nodes and from the applications for %.1f s", r.node, r.held.Seconds())
	t.Logf("partition: a client beside it had %d identity calls refused (%s), the first NO_QUORUM %.2f s into the cut, %d answered",
		total, r.refusals(), r.noQuorumAt.Sub(r.cut).Seconds(), r.answered)
	for _, class := range slices.Sorted(maps.Keys(r.firstErrors)) {
		msg := r.firstErrors[class]
		t.Logf("partition: first %s: %s", class, msg)
	}
	t.Logf("partition: healed, node %s answered identities again %.2f s later and applied the leader's commit index %d",
		r.node, r.servedAfter.Seconds(), r.caughtUp)
	for _, a := range d.apps {
		in := r.apps[a.lang]
		t.Logf("partition: the %s application committed %d rows during the cut, longest wait between two commits %d ms, failed batches %v",
			a.lang, in.rows, in.stall.Milliseconds(), in.failed)
	}
}
