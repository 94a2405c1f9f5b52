package ops

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/reason"
	"github.com/idnode/idnode/test/e2e/e2etest"
)

// TestMetrics scrapes /metrics of a three-node cluster: the gRPC server metrics, Raft state,
// IDs issued per strategy, batch and range sizes, and a no-quorum refusal. Node A also serves
// the profiler (--pprof); the others must not.
func TestMetrics(t *testing.T) {
	t.Parallel()
	metricsAddr := map[string]string{}
	for _, tag := range e2etest.ClusterTags {
		metricsAddr[tag] = e2etest.FreeAddr(t)
	}
	nodes := e2etest.StartNodes(t, e2etest.ClusterTags, func(tag string) []string {
		args := []string{"--metrics-addr", metricsAddr[tag]}
		if tag == "A" {
			args = append(args, "--pprof")
		}
		return args
	}, nil)
	for _, tag := range e2etest.ClusterTags {
		code, body := e2etest.HTTPGet(t, metricsAddr[tag], "/debug/pprof/")
		switch {
		case tag == "A" && (code != http.StatusOK || !strings.Contains(body, "goroutine")):
			t.Errorf("node A (--pprof): GET /debug/pprof/ = %d %q, want 200 and the profiles", code, body)
		case tag != "A" && code != http.StatusNotFound:
			t.Errorf("node %s (no --pprof): GET /debug/pprof/ = %d, want 404", tag, code)
		}
	}
	byTag := map[string]*e2etest.Proc{}
	ids := map[string]idnodev1.IdServiceClient{}
	for _, p := range nodes {
		byTag[p.Tag] = p
		ids[p.Tag] = idnodev1.NewIdServiceClient(e2etest.DialOver(t, p.GRPCAddr, nil))
	}
	statusConn := e2etest.DialOver(t, nodes[0].GRPCAddr, nil)
	leader := leaderVia(t, statusConn)
	var followers []string
	for _, tag := range e2etest.ClusterTags {
		if tag != leader {
			followers = append(followers, tag)
		}
	}

	// An election on a loaded machine may come between any two calls; a node refuses a call
	// for want of a quorum then, before it does anything, and counts the refusal. The test asks
	// the same node again and expects its count to have grown by the refusals it was given
	// (counted from here: the reads that found the leader may have been refused too).
	refused := map[string]float64{}
	refusedBefore := noQuorumRefusals(t, metricsAddr[leader])
	ask := func(via, what string, call func(ctx context.Context) error) {
		t.Helper()
		err := e2etest.WhileRetryable(e2etest.LeaderTimeout, func(int) error {
			ctx, cancel := context.WithTimeout(context.Background(), e2etest.RPCTimeout)
			defer cancel()
			switch err := call(ctx); {
			case err == nil:
				return nil
			case reason.Of(err) == reason.NoQuorum:
				refused[via]++
				return err
			default:
				return notRetried{err}
			}
		})
		if err != nil {
			t.Fatalf("%s via %s: %v", what, via, err)
		}
	}
	gen := func(via, id string, count int64) {
		t.Helper()
		ask(via, fmt.Sprintf("Generate(%q)", id), func(ctx context.Context) error {
			_, err := ids[via].Generate(ctx, &idnodev1.GenerateRequest{Id: id, Count: count})
			return err
		})
	}
	gen(leader, "orders|", 3)
	gen(leader, "users/", 1)
	gen(leader, "", 2)
	gen(leader, "users/ayende", 1)
	ask(leader, "NextHiLo(carts)", func(ctx context.Context) error {
		_, err := ids[leader].NextHiLo(ctx, &idnodev1.NextHiLoRequest{Tag: "carts"})
		return err
	})
	gen(followers[0], "orders|", 4) // relayed: counted where it was asked, not on the leader

	body := e2etest.Scrape(t, metricsAddr[leader])
	for series, want := range map[string]float64{
		`idnode_ids_issued_total{database="default",strategy="identity"}`:                                                       3,
		`idnode_ids_issued_total{database="default",strategy="server-side"}`:                                                    1,
		`idnode_ids_issued_total{database="default",strategy="guid"}`:                                                           2,
		`idnode_ids_issued_total{database="default",strategy="semantic"}`:                                                       1,
		`idnode_ids_issued_total{database="default",strategy="hilo"}`:                                                           32,
		`idnode_hilo_range_size_sum`:                                                                                            32,
		`idnode_no_quorum_refusals_total`:                                                                                       refusedBefore + refused[leader],
		`grpc_server_handled_total{grpc_code="OK",grpc_method="Generate",grpc_service="idnode.v1.IdService",grpc_type="unary"}`: 4,
	} {
		if got := e2etest.MetricValue(t, body, series); got != want {
			t.Errorf("leader %s: %s = %v, want %v", leader, series, got, want)
		}
	}
	for _, series := range []string{
		`idnode_raft_term`, `idnode_raft_commit_index`, `idnode_raft_applied_index`,
		`idnode_raft_apply_duration_seconds_count`, `idnode_identity_batch_size_count`,
		`grpc_server_handling_seconds_count{grpc_method="Generate",grpc_service="idnode.v1.IdService",grpc_type="unary"}`,
		`grpc_server_started_total{grpc_method="NextHiLo",grpc_service="idnode.v1.IdService",grpc_type="unary"}`,
	} {
		if got := e2etest.MetricValue(t, body, series); got < 1 {
			t.Errorf("leader %s: %s = %v, want at least 1", leader, series, got)
		}
	}
	if !strings.Contains(body, "go_goroutines ") || !strings.Contains(body, "process_resident_memory_bytes ") {
		t.Error("/metrics lacks the Go runtime and process metrics")
	}

	f := followers[0]
	body = e2etest.Scrape(t, metricsAddr[f])
	if got := e2etest.MetricValue(t, body, `idnode_ids_issued_total{database="default",strategy="identity"}`); got != 4 {
		t.Errorf("follower %s issued %v identities, want 4", f, got)
	}
	raftGaugesTellTheRoles(t, statusConn, metricsAddr)

	// Freeze the other two: f refuses identities for want of a quorum, and counts it.
	others := []*e2etest.Proc{byTag[leader], byTag[followers[1]]}
	for _, p := range others {
		p.Sigstop()
	}
	defer func() {
		for _, p := range others {
			p.Sigcont()
		}
	}()
	refusedBefore = noQuorumRefusals(t, metricsAddr[f])
	ctx, cancel := context.WithTimeout(context.Background(), e2etest.RefusalLimit)
	defer cancel()
	_, err := ids[f].Generate(ctx, &idnodev1.GenerateRequest{Id: "orders|"})
	if status.Code(err) != codes.Unavailable || !strings.HasPrefix(status.Convert(err).Message(), "no quorum") {
		t.Fatalf("Generate(orders|) on a node cut off from the others: %v, want UNAVAILABLE no quorum", err)
	}
	e2etest.Eventually(t, e2etest.RPCTimeout, "the refusal is counted", func() error {
		if got, want := noQuorumRefusals(t, metricsAddr[f]), refusedBefore+1; got != want {
			return fmt.Errorf("idnode_no_quorum_refusals_total = %v, want %v", got, want)
		}
		return nil
	})
}

// raftGaugesTellTheRoles checks each node's Raft gauges against its role: the leader in
// state "leader" with no time since its last contact, the others followers. They say what a
// node is now, and an election on a loaded machine may move the leader at any time, so the
// check is made again, with the leader read again, until one scrape of every node agrees.
func raftGaugesTellTheRoles(t *testing.T, conn *grpc.ClientConn, metricsAddr map[string]string) {
	t.Helper()
	e2etest.Eventually(t, e2etest.LeaderTimeout, "the Raft gauges of every node tell its role", func() error {
		leader := leaderVia(t, conn)
		for _, tag := range e2etest.ClusterTags {
			body := e2etest.Scrape(t, metricsAddr[tag])
			lead, follow := e2etest.MetricValue(t, body, `idnode_raft_state{state="leader"}`), e2etest.MetricValue(t, body, `idnode_raft_state{state="follower"}`)
			contact := e2etest.MetricValue(t, body, `idnode_raft_last_contact_seconds`)
			if tag == leader && (lead != 1 || follow != 0 || contact != 0) || tag != leader && (lead != 0 || follow != 1 || contact < 0) {
				return fmt.Errorf("leader %s; node %s's Raft gauges:\n%s", leader, tag, grep(body, "idnode_raft_"))
			}
		}
		return nil
	})
}

// noQuorumRefusals is the refusals for want of a quorum that the node whose metrics are at
// addr has counted.
func noQuorumRefusals(t *testing.T, addr string) float64 {
	t.Helper()
	return e2etest.MetricValue(t, e2etest.Scrape(t, addr), `idnode_no_quorum_refusals_total`)
}

// notRetried is an answer that no retry may change: it hides the gRPC status from
// e2etest.WhileRetryable, which would retry every UNAVAILABLE, and says what it was.
type notRetried struct{ err error }

func (e notRetried) Error() string { return e.err.Error() }

func grep(body, prefix string) string {
	var out []string
	for _, l := range strings.Split(body, "\n") {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
