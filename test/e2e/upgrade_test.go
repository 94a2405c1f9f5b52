package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/fsm"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/history"
)

// previousRelease is the commit the upgrade test builds as the release before this tree: the
// main that users ran before cluster versions (issue 44), a build that knows none of them.
// Move it to the commit of the newest release once releases are tagged.
const previousRelease = "5f6224504073c2067e36f5aa10ea9ae159cace8b"

// previousVersion is the version string the previous release is built with.
const previousVersion = "v0.0.0-previous"

// upgradeJoinWait bounds a node of the previous release trying to join after finalisation:
// it must be refused, and exit, well within its own join timeout.
const upgradeJoinWait = 30 * time.Second

var previous struct {
	once    sync.Once
	path    string
	missing string // why the commit cannot be built here (a shallow clone), or ""
	err     error
}

// buildPrevious builds cmd/idnode of previousRelease once per test binary: its tree is taken
// out of this repository's history (git archive) into binDir and built there. A clone without
// that commit (a shallow one) skips the test, and fails it under CI=true.
func buildPrevious(t testing.TB) string {
	t.Helper()
	previous.once.Do(func() { previous.path, previous.missing, previous.err = buildCommit(previousRelease) })
	if previous.missing != "" {
		if os.Getenv("CI") == "true" {
			t.Fatal(previous.missing)
		}
		t.Skip(previous.missing)
	}
	if previous.err != nil {
		t.Fatalf("building the previous release: %v", previous.err)
	}
	return previous.path
}

func buildCommit(commit string) (path, missing string, err error) {
	root, err := repoRoot()
	if err != nil {
		return "", "", err
	}
	if exec.Command("git", "-C", root, "cat-file", "-e", commit+"^{commit}").Run() != nil {
		return "", fmt.Sprintf("commit %s (the previous release) is not in this clone: fetch the whole history (git fetch --unshallow)", commit[:12]), nil
	}
	dir, err := binDir()
	if err != nil {
		return "", "", err
	}
	src := filepath.Join(dir, "previous-src")
	if err := os.MkdirAll(src, 0o755); err != nil {
		return "", "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
	defer cancel()
	tarball := filepath.Join(dir, "previous.tar")
	path = filepath.Join(dir, "idnode-previous")
	for _, cmd := range []*exec.Cmd{
		exec.CommandContext(ctx, "git", "-C", root, "archive", "--format=tar", "-o", tarball, commit),
		exec.CommandContext(ctx, "tar", "-x", "-f", tarball, "-C", src),
		exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags", "-X github.com/idnode/idnode/version.version="+previousVersion, "-o", path, "./cmd/idnode"),
	} {
		cmd.Dir = src
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", "", fmt.Errorf("%s: %w\n%s", strings.Join(cmd.Args, " "), err, out)
		}
	}
	return path, "", nil
}

// swapBinary stops node tag cleanly, starts it again on bin with the same data dir and flags,
// and waits until it serves.
func (c *cluster) swapBinary(tag, bin string) {
	c.t.Helper()
	p := c.node(tag)
	p.stop()
	p.mu.Lock()
	p.bin = bin
	p.mu.Unlock()
	p.restart()
	c.waitServing(tag)
}

// retried calls fn through each node in turn until it succeeds, as a client does: an error a
// client may retry (UNAVAILABLE, DEADLINE_EXCEEDED) moves to the next node, any other fails
// the test, and so does no answer within opBudget.
func (c *cluster) retried(what string, fn func(ctx context.Context, tag string) error) {
	c.t.Helper()
	deadline := time.Now().Add(opBudget)
	for attempt := 0; ; attempt++ {
		tag := clusterTags[attempt%len(clusterTags)]
		ctx, cancel := context.WithTimeout(context.Background(), rpcTimeout)
		err := fn(ctx, tag)
		cancel()
		if err == nil {
			return
		}
		if !retryable(err) || time.Now().After(deadline) {
			c.t.Fatalf("%s via %s (attempt %d): %v", what, tag, attempt+1, err)
		}
		time.Sleep(retryPause) // retry backoff
	}
}

// upgradeWork is what the upgrade test asks of the cluster at each step besides the identity
// load: a number of its gapless series and a HiLo range, each with a request id kept across
// retries.
type upgradeWork struct {
	c       *cluster
	rec     *history.Recorder
	numbers []int64
}

func (w *upgradeWork) step() {
	w.c.t.Helper()
	for range 3 {
		reqID := w.c.requestID()
		w.c.retried("Issue(INV)", func(ctx context.Context, tag string) error {
			resp, err := w.c.seriesClient(tag).Issue(ctx, &idnodev1.IssueRequest{Series: "INV", RequestId: reqID, DocumentHash: "aa11"})
			if err == nil {
				w.numbers = append(w.numbers, resp.GetEntry().GetNumber())
			}
			return err
		})
	}
	reqID := w.c.requestID()
	w.c.retried("NextHiLo(invoices)", func(ctx context.Context, tag string) error {
		resp, err := w.c.ids[tag].NextHiLo(ctx, &idnodev1.NextHiLoRequest{Tag: "invoices", RequestId: reqID})
		if err == nil {
			w.rec.HiLoRange("invoices", resp.GetLow(), resp.GetHigh())
		}
		return err
	})
}

func (c *cluster) seriesClient(tag string) idnodev1.SeriesServiceClient {
	return idnodev1.NewSeriesServiceClient(c.conns[tag])
}

// noneHalted fails the test if a node exited or logged a halt: the cluster version must keep
// every command a node does not know out of the log.
func (c *cluster) noneHalted(when string) {
	c.t.Helper()
	for _, p := range c.nodes {
		if _, done := p.current(); isClosed(done) {
			c.t.Fatalf("%s: node %s exited: %v", when, p.Tag, p.state)
		}
		if strings.Contains(p.logs.String(), "HALT") {
			c.t.Fatalf("%s: node %s halted", when, p.Tag)
		}
	}
}

// TestRollingUpgradeFromThePreviousRelease runs a cluster of the previous release under load,
// upgrades it node by node with the leadership moved onto an upgraded node and back onto an
// old one in the middle, rolls it back to the previous release and forward again before
// finalising, and checks that no node halts, no client sees an error but a retried
// UNAVAILABLE, no identity or HiLo number is handed out twice, the series verifies, and the
// command new in this build is refused, naming the nodes on older builds, until finalisation.
func TestRollingUpgradeFromThePreviousRelease(t *testing.T) {
	old, current := buildPrevious(t), buildIdnode(t)
	c := startClusterWith(t, func(string) nodeOpts { return nodeOpts{Binary: old} })
	env := []string{"IDNODE_ADDR=" + strings.Join(c.grpcAddrs(), ",")}
	rec := history.New()
	ld := c.startLoad(rec, 3, "orders")
	waitAcks(t, rec, 30, ld)
	w := &upgradeWork{c: c, rec: rec}
	c.retried("CreateSeries(INV)", func(ctx context.Context, tag string) error {
		_, err := c.seriesClient(tag).CreateSeries(ctx, &idnodev1.CreateSeriesRequest{Name: "INV", Format: "INV-{n:04}", RequestId: "create-inv"})
		return err
	})
	c.retried("Claim", func(ctx context.Context, tag string) error {
		_, err := c.ids[tag].Claim(ctx, &idnodev1.ClaimRequest{Ids: []string{"users/1", "users/2", "users/3"}, Owner: "importer", RequestId: "claim-importer"})
		return err
	})
	w.step()

	// A backup the previous release wrote opens here.
	backup := filepath.Join(t.TempDir(), "old.backup")
	mustIdctl(t, env, "backup", backup)
	f, err := os.Open(backup)
	if err != nil {
		t.Fatal(err)
	}
	b, err := fsm.ReadBackup(f)
	f.Close()
	if err != nil || len(b.Identities) == 0 || len(b.HiLo) == 0 || len(b.Series) != 1 {
		t.Fatalf("the previous release's backup: %v; %d identities, %d HiLo tags, %d series", err, len(b.Identities), len(b.HiLo), len(b.Series))
	}
	// … and restores into a cluster of this build: its counters above the backup's, its series whole.
	e := startNode(t, nodeOpts{Tag: "E"})
	e.waitServing(serveTimeout)
	mustIdctl(t, []string{"IDNODE_ADDR=" + e.GRPCAddr}, "restore", backup)
	restored := dialConn(t, e.GRPCAddr)
	for _, id := range b.Identities {
		got, err := idnodev1.NewIdServiceClient(restored).Generate(rpcCtx(t), &idnodev1.GenerateRequest{Id: id.Name + "|"})
		if err != nil {
			t.Fatalf("after the restore: %v", err)
		}
		if n, _, err := parseIdentities(got.GetIds(), id.Name, 1); err != nil || n <= id.Value {
			t.Fatalf("after the restore %s| gave %v (%v); the backup had it at %d", id.Name, got.GetIds(), err, id.Value)
		}
	}
	if v, err := idnodev1.NewSeriesServiceClient(restored).VerifySeries(rpcCtx(t), &idnodev1.VerifySeriesRequest{Series: "INV"}); err != nil || !v.GetOk() {
		t.Fatalf("the restored series INV: %v, %v", v, err)
	}
	e.stop()

	leader := c.leader()
	first := c.others(leader)[0]
	last := c.others(leader, first)[0]
	transfer := func(to string) {
		t.Helper()
		c.retried("TransferLeadership to "+to, func(ctx context.Context, tag string) error {
			_, err := c.admin[tag].TransferLeadership(ctx, &idnodev1.TransferLeadershipRequest{Tag: to})
			return err
		})
	}

	// A new leader over two old followers: the election that used to halt them.
	c.swapBinary(first, current)
	transfer(first)
	w.step()
	eventually(t, leaderTimeout, "ReleaseOwner refused, naming the two nodes on the previous release", func() error {
		ctx, cancel := context.WithTimeout(context.Background(), rpcTimeout)
		defer cancel()
		_, err := c.ids[first].ReleaseOwner(ctx, &idnodev1.ReleaseOwnerRequest{Owner: "importer"})
		msg := status.Convert(err).Message()
		if status.Code(err) != codes.FailedPrecondition || !strings.Contains(msg, "ReleaseOwner") {
			t.Fatalf("ReleaseOwner with nodes on the previous release: %v", err)
		}
		if !strings.Contains(msg, leader+" (version 1") || !strings.Contains(msg, last+" (version 1") || strings.Contains(msg, first+" (") {
			return fmt.Errorf("the refusal names %q", msg)
		}
		return nil
	})
	c.noneHalted("after the first upgrade")

	// The old leader next, then an old leader over two new followers, then that one.
	c.swapBinary(leader, current)
	w.step()
	transfer(last)
	w.step()
	c.swapBinary(last, current)
	w.step()
	c.noneHalted("after the upgrade")

	eventually(t, leaderTimeout, "every member's build recorded", func() error {
		ctx, cancel := context.WithTimeout(context.Background(), rpcTimeout)
		defer cancel()
		cv, err := c.admin[first].ClusterVersion(ctx, &idnodev1.ClusterVersionRequest{})
		if err != nil || cv.GetFinalised() != 1 || cv.GetEffective() != fsm.CurrentVersion {
			return fmt.Errorf("%v, %v", cv, err)
		}
		return nil
	})
	_, err = c.ids[first].ReleaseOwner(rpcCtx(t), &idnodev1.ReleaseOwnerRequest{Owner: "importer"})
	if status.Code(err) != codes.FailedPrecondition || !strings.Contains(status.Convert(err).Message(), "finalise") {
		t.Fatalf("ReleaseOwner before finalisation: %v", err)
	}
	eventually(t, leaderTimeout, "idctl status saying the upgrade awaits finalisation", func() error {
		if out := mustIdctl(t, env, "status"); !strings.Contains(out, "every member supports 2; finalise it") {
			return fmt.Errorf("idctl status:\n%s", out)
		}
		return nil
	})

	// Not finalised, so the previous release may come back: roll back every node, the leader
	// among them, then forward again. Finalising is refused while a node runs it.
	c.swapBinary(first, old)
	// idctl asks the upgraded nodes: the previous release does not know ClusterVersion.
	upgraded := []string{"IDNODE_ADDR=" + c.node(leader).GRPCAddr + "," + c.node(last).GRPCAddr}
	wantIdctlFailure(t, 1, upgraded, []string{"cluster", "version", "finalise"}, "FAILED_PRECONDITION", first+" answers with build", previousVersion)
	w.step()
	for _, tag := range []string{leader, last} {
		c.swapBinary(tag, old)
		w.step()
	}
	c.noneHalted("after the rollback")
	for _, tag := range clusterTags {
		c.swapBinary(tag, current)
		w.step()
	}
	c.noneHalted("after the second upgrade")

	eventually(t, leaderTimeout, "finalising", func() error {
		r := idctl(t, env, "cluster", "version", "finalise")
		if r.code != 0 {
			return fmt.Errorf("%v", r)
		}
		if !strings.Contains(r.stdout, "cluster version 2 (finalised)") {
			t.Fatalf("idctl cluster version finalise printed:\n%s", r.stdout)
		}
		return nil
	})
	resp, err := c.ids[first].ReleaseOwner(rpcCtx(t), &idnodev1.ReleaseOwnerRequest{Owner: "importer"})
	if err != nil || resp.GetReleased() != 3 {
		t.Fatalf("ReleaseOwner once finalised = %v, %v; want 3 released", resp, err)
	}
	w.step()
	wantIdctlFailure(t, 1, env, []string{"cluster", "version", "downgrade"}, "FAILED_PRECONDITION", "can no longer be lowered")

	// A node of the previous release is refused at join, before it is a member to halt.
	d := startNode(t, nodeOpts{Tag: "D", Binary: old, RaftAddr: freeAddr(t), Extra: []string{"--join", c.node(first).GRPCAddr}})
	st, err := d.waitExit(upgradeJoinWait)
	if err != nil || st.ExitCode() == 0 || !strings.Contains(d.logs.String(), "finalised at version 2") {
		t.Fatalf("a node of the previous release joining a finalised cluster: %v, %v\n%s", st, err, d.logs.String())
	}

	ld.finish(t)
	c.noneHalted("at the end")
	checkHistory(t, rec)
	for i, n := range w.numbers {
		if n != int64(i+1) {
			t.Fatalf("series INV numbers %v: want 1, 2, 3, … with no gap or repeat", w.numbers)
		}
	}
	v, err := c.seriesClient(first).VerifySeries(rpcCtx(t), &idnodev1.VerifySeriesRequest{Series: "INV"})
	if err != nil || !v.GetOk() || v.GetIssued() != uint64(len(w.numbers)) {
		t.Fatalf("VerifySeries(INV) = %v, %v; want ok with %d issued", v, err, len(w.numbers))
	}
}
