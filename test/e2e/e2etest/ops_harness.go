package e2etest

// Helpers of the operations tests (packages ops and access): the idctl binary, clusters whose nodes get
// flags of their own (metrics ports, TLS certificates), and waiting for a node over TLS.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/test/helpers/nodeenv"
	"github.com/idnode/idnode/test/helpers/prebuilt"
)

const (
	idctlTimeout = 60 * time.Second // one idctl run, all its retries included
)

var idctlBinary = &goBinary{prog: prebuilt.Idctl}

// BuildIdctl finds or builds ./cmd/idctl once per test binary and returns its path.
func BuildIdctl(t testing.TB) string { t.Helper(); return idctlBinary.build(t) }

// idctlResult is one finished idctl run.
type idctlResult struct {
	args           []string
	Stdout, Stderr string
	Code           int
	// Retried says that idctlThroughElections ran it again after a refusal: an earlier run
	// may have done what it asked though its answer was lost.
	Retried bool
}

func (r idctlResult) String() string {
	return fmt.Sprintf("idctl %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(r.args, " "), r.Code, r.Stdout, r.Stderr)
}

// Idctl runs the idctl binary with args and extra environment (IDNODE_* of the test process
// are dropped), in dir (a temp dir when empty), within idctlTimeout.
func Idctl(t testing.TB, env []string, args ...string) idctlResult {
	t.Helper()
	return IdctlIn(t, "", env, args...)
}

func IdctlIn(t testing.TB, dir string, env []string, args ...string) idctlResult {
	t.Helper()
	bin := BuildIdctl(t)
	if dir == "" {
		dir = t.TempDir()
	}
	ctx, cancel := context.WithTimeout(context.Background(), idctlTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = nodeenv.Clean(env...)
	cmd.WaitDelay = time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := idctlResult{args: args, Stdout: stdout.String(), Stderr: stderr.String()}
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("idctl %s: no exit within %v", strings.Join(args, " "), idctlTimeout)
	case errors.As(err, &exit):
		res.Code = exit.ExitCode()
	case err != nil:
		t.Fatalf("idctl %s: %v", strings.Join(args, " "), err)
	}
	return res
}

// MustIdctl runs idctl and fails the test unless it exits 0; it returns stdout.
func MustIdctl(t testing.TB, env []string, args ...string) string {
	t.Helper()
	r := Idctl(t, env, args...)
	if r.Code != 0 {
		t.Fatalf("%v", r)
	}
	return r.Stdout
}

// MustIdctlRetrying is MustIdctl for a call a cluster may refuse while it elects a leader
// (idctlThroughElections). Only a call that is safe to repeat (a read, or a write with its
// request id) may go through it.
func MustIdctlRetrying(t testing.TB, env []string, args ...string) string {
	t.Helper()
	return MustIdctlThroughElections(t, env, args...).Stdout
}

// backupLeader finds the node in idctl backup's summary ("… from leader B: …").
var backupLeader = regexp.MustCompile(`from leader (\S+):`)

// BackupTakenOn is the node idctl backup's output says took the backup, or "" when it names
// none.
func BackupTakenOn(out string) string {
	if m := backupLeader.FindStringSubmatch(out); m != nil {
		return m[1]
	}
	return ""
}

// MustIdctlThroughElections is MustIdctlRetrying returning the whole run, for a test whose
// check of the answer depends on whether an earlier run may have done the work (Retried).
func MustIdctlThroughElections(t testing.TB, env []string, args ...string) idctlResult {
	t.Helper()
	r := idctlThroughElections(t, env, args...)
	if r.Code != 0 {
		t.Fatalf("%v", r)
	}
	return r
}

// WantIdctlFailure runs idctl and fails the test unless it exits with code and prints one
// line on stderr, starting "idctl: ", that contains every one of want.
func WantIdctlFailure(t testing.TB, code int, env []string, args []string, want ...string) idctlResult {
	t.Helper()
	return wantFailed(t, Idctl(t, env, args...), code, want)
}

// WantIdctlRefusal is WantIdctlFailure for a call the cluster must refuse for what it asks,
// but may first refuse for want of a leader while it elects one (idctlThroughElections).
func WantIdctlRefusal(t testing.TB, code int, env []string, args []string, want ...string) idctlResult {
	t.Helper()
	return wantFailed(t, idctlThroughElections(t, env, args...), code, want)
}

func wantFailed(t testing.TB, r idctlResult, code int, want []string) idctlResult {
	t.Helper()
	msg := strings.TrimSuffix(r.Stderr, "\n")
	if r.Code != code || !strings.HasPrefix(msg, "idctl: ") || strings.Contains(msg, "\n") {
		t.Fatalf("want exit %d and one line \"idctl: …\" on stderr; got %v", code, r)
	}
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Fatalf("stderr lacks %q: %v", w, r)
		}
	}
	return r
}

// idctlThroughElections runs idctl again, as a client would, while it answers UNAVAILABLE or
// DEADLINE_EXCEEDED (a cluster electing a leader on a busy machine), for at most
// LeaderTimeout, and returns its last run.
func idctlThroughElections(t testing.TB, env []string, args ...string) idctlResult {
	t.Helper()
	return idctlWhile(t, func(r idctlResult) bool {
		return strings.Contains(r.Stderr, ": UNAVAILABLE: ") || strings.Contains(r.Stderr, ": DEADLINE_EXCEEDED: ")
	}, env, args...)
}

// MustIdctlNothingProposed is MustIdctl for a write that must not be applied twice (a
// cluster version downgrade goes one step each time): it runs idctl again only after a
// refusal that says nothing was proposed, no leader being known while the nodes elect one,
// never after one whose outcome is unknown, for at most LeaderTimeout. It returns stdout.
func MustIdctlNothingProposed(t testing.TB, env []string, args ...string) string {
	t.Helper()
	r := idctlWhile(t, func(r idctlResult) bool {
		return strings.Contains(r.Stderr, "(no leader is known)") && !strings.Contains(r.Stderr, "outcome is unknown")
	}, env, args...)
	if r.Code != 0 {
		t.Fatalf("%v", r)
	}
	return r.Stdout
}

// idctlWhile runs idctl again while it fails with a refusal retry says is to be retried, for
// at most LeaderTimeout, and returns its last run.
func idctlWhile(t testing.TB, retry func(idctlResult) bool, env []string, args ...string) idctlResult {
	t.Helper()
	var r idctlResult
	_ = WhileRetryable(LeaderTimeout, func(attempt int) error {
		r = Idctl(t, env, args...)
		r.Retried = attempt > 0
		if r.Code != 0 && retry(r) {
			return status.Error(codes.Unavailable, r.String()) // what WhileRetryable retries
		}
		return nil
	})
	return r
}

// StartNodes starts one node per tag, all with the same --peers list plus the flags extra
// gives each, and waits until every one is SERVING over creds (plaintext when nil).
func StartNodes(t testing.TB, tags []string, extra func(tag string) []string, creds credentials.TransportCredentials) []*Proc {
	t.Helper()
	var raft []string
	for _, tag := range tags {
		raft = append(raft, tag+"="+FreeAddr(t))
	}
	peers := strings.Join(raft, ",")
	var nodes []*Proc
	for _, tag := range tags {
		var flags []string
		if extra != nil {
			flags = extra(tag)
		}
		nodes = append(nodes, StartNode(t, NodeOpts{Tag: tag, Peers: peers, Extra: flags}))
	}
	for _, p := range nodes {
		WaitServingOver(t, p, creds, ServeTimeout)
	}
	return nodes
}

// DialOver is dialConn with the given transport credentials (plaintext when nil).
func DialOver(t testing.TB, addr string, creds credentials.TransportCredentials) *grpc.ClientConn {
	t.Helper()
	if creds == nil {
		creds = insecure.NewCredentials()
	}
	conn, err := grpc.NewClient("passthrough:///"+addr,
		grpc.WithTransportCredentials(creds),
		grpc.WithConnectParams(grpc.ConnectParams{
			Backoff:           backoff.Config{BaseDelay: 20 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: 250 * time.Millisecond},
			MinConnectTimeout: 2 * time.Second,
		}))
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return conn
}

// WaitServingOver is proc.waitServing over creds.
func WaitServingOver(t testing.TB, p *Proc, creds credentials.TransportCredentials, timeout time.Duration) {
	t.Helper()
	conn := DialOver(t, p.GRPCAddr, creds)
	hc := healthpb.NewHealthClient(conn)
	_, exited := p.Current()
	var last string
	Eventually(t, timeout, "node "+p.Tag+" SERVING", func() error {
		select {
		case <-exited:
			t.Fatalf("node %s exited before it was SERVING (last answer: %s)", p.Tag, last)
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		resp, err := hc.Check(ctx, &healthpb.HealthCheckRequest{})
		switch {
		case err != nil:
			last = err.Error()
		case resp.GetStatus() != healthpb.HealthCheckResponse_SERVING:
			last = resp.GetStatus().String()
		default:
			return nil
		}
		return errors.New(last)
	})
}

// AddrsOf joins the nodes' gRPC addresses for --addr.
func AddrsOf(nodes ...*Proc) string {
	var out []string
	for _, p := range nodes {
		out = append(out, p.GRPCAddr)
	}
	return strings.Join(out, ",")
}
