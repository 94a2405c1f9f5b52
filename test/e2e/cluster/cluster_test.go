package cluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
	"github.com/idnode/idnode/test/helpers/nodeenv"
	"github.com/idnode/idnode/test/history"
)

func TestClusterRoundRobinIdentities(t *testing.T) {
	t.Parallel()
	c := e2etest.StartCluster(t)
	rec := history.New()

	for i := range 30 {
		via := e2etest.ClusterTags[i%3]
		first, _ := c.MustIdentity(rec, "orders", 1, via)
		if first != int64(i+1) {
			t.Fatalf("call %d via %s: orders/%d, want orders/%d", i+1, via, first, i+1)
		}
	}
	for _, tag := range e2etest.ClusterTags {
		// serverSide checks the prefix and that the tag is the node's own.
		if etag := c.MustServerSide(rec, "users", tag); etag != 1 {
			t.Errorf("Generate(users/) via %s: etag %d, want users/0000000000000000001-%s", tag, etag, tag)
		}
	}

	// Every node's consistent Status describes the same cluster: one leader, every node a
	// reachable voter at its addresses. A busy machine may hold an election between two reads,
	// so the description is read again until the three agree.
	var leader string
	e2etest.Eventually(t, e2etest.LeaderTimeout, "every node's Status describing the same cluster", func() (err error) {
		leader, err = describedCluster(c)
		return err
	})
	t.Logf("leader %s", leader)
	e2etest.CheckHistory(t, rec)
}

// describedCluster reads every node's consistent Status and returns the leader they name, or
// what is wrong with what they say.
func describedCluster(c *e2etest.Cluster) (string, error) {
	var leader string
	var problems []string
	for _, via := range e2etest.ClusterTags {
		ctx, cancel := context.WithTimeout(context.Background(), e2etest.RPCTimeout)
		st, err := c.Admin[via].Status(ctx, &idnodev1.StatusRequest{Consistent: true})
		cancel()
		if err != nil {
			problems = append(problems, fmt.Sprintf("Status{consistent} via %s: %v", via, err))
			continue
		}
		if !slices.Contains(e2etest.ClusterTags, st.GetLeader()) {
			problems = append(problems, fmt.Sprintf("Status via %s names leader %q, want one of %v", via, st.GetLeader(), e2etest.ClusterTags))
		}
		if leader == "" {
			leader = st.GetLeader()
		} else if st.GetLeader() != leader {
			problems = append(problems, fmt.Sprintf("Status via %s names leader %s; another node named %s", via, st.GetLeader(), leader))
		}
		var got []string
		for _, n := range st.GetNodes() {
			got = append(got, n.GetTag())
			p := c.Node(n.GetTag())
			if !n.GetVoter() || !n.GetReachable() {
				problems = append(problems, fmt.Sprintf("Status via %s: node %s voter=%v reachable=%v, want both", via, n.GetTag(), n.GetVoter(), n.GetReachable()))
			}
			if n.GetGrpcAddress() != p.GRPCAddr || n.GetRaftAddress() != p.RaftAddr {
				problems = append(problems, fmt.Sprintf("Status via %s: node %s at grpc %s raft %s, want %s and %s", via, n.GetTag(), n.GetGrpcAddress(), n.GetRaftAddress(), p.GRPCAddr, p.RaftAddr))
			}
			if wantState := map[bool]string{true: "leader", false: "follower"}[n.GetTag() == leader]; n.GetState() != wantState {
				problems = append(problems, fmt.Sprintf("Status via %s: node %s state %q, want %q", via, n.GetTag(), n.GetState(), wantState))
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, e2etest.ClusterTags) {
			problems = append(problems, fmt.Sprintf("Status via %s lists nodes %q, want %q", via, got, e2etest.ClusterTags))
		}
	}
	if len(problems) > 0 {
		return leader, errors.New(strings.Join(problems, "\n"))
	}
	return leader, nil
}

func TestClusterLeaderKill9Failover(t *testing.T) {
	c := e2etest.StartCluster(t)
	rec := history.New()
	ld := c.StartLoad(rec, 4, "orders")
	defer func() {
		if ld != nil {
			ld.Finish(t)
		}
	}()
	e2etest.WaitAcks(t, rec, 60, ld)

	leader := c.Leader()
	survivors := c.Others(leader)
	killed := c.Node(leader)
	termBefore := maxTerm(terms(t, c))
	killedAt := time.Now()
	killed.Kill9()
	maxBefore, _ := rec.MaxIdentity("orders")

	// How long until a survivor answers an identity: short attempts, alternating survivors,
	// one logical call with one request_id.
	reqID := c.RequestID()
	op := rec.BeginIdentity("orders", 1)
	var (
		failover time.Duration
		first    int64
		attempts int
		lastErr  error
	)
	for deadline := time.Now().Add(e2etest.FailoverLimit); ; {
		via := survivors[attempts%len(survivors)]
		attempts++
		ctx, cancel := context.WithTimeout(context.Background(), e2etest.ProbeAttempt)
		resp, err := c.Ids[via].Generate(ctx, &idnodev1.GenerateRequest{Id: "orders|", RequestId: reqID})
		cancel()
		if err == nil {
			failover = time.Since(killedAt)
			var perr error
			if first, _, perr = e2etest.ParseIdentities(resp.GetIds(), "orders", 1); perr != nil {
				op.Unknown()
				t.Fatal(perr)
			}
			op.Done(first, first)
			t.Logf("failover: %s killed; %s answered orders/%d after %d ms (%d attempts)", leader, via, first, failover.Milliseconds(), attempts)
			break
		}
		lastErr = err
		if !e2etest.Retryable(err) {
			op.Unknown()
			t.Fatalf("after killing leader %s: Generate(orders|) via %s: %v, want UNAVAILABLE or an answer", leader, via, err)
		}
		if time.Now().After(deadline) {
			op.Unknown()
			t.Fatalf("no survivor answered an identity within %v of killing leader %s (last error: %v)", e2etest.FailoverLimit, leader, lastErr)
		}
		op.Retry()
		time.Sleep(10 * time.Millisecond) // retry backoff; bounds the measurement's resolution
	}
	if first <= maxBefore {
		t.Errorf("first identity after failover orders/%d, but orders/%d was acknowledged before the kill", first, maxBefore)
	}
	// DESIGN's goal is failover within about a second (< 2 s); on a loaded 2-core machine
	// under -race only a loose bound is asserted, the figure is logged.
	if failover > 5*time.Second {
		t.Errorf("failover took %v, want < 5 s (design goal < 2 s)", failover)
	} else if failover > 2*time.Second {
		t.Logf("failover took %v: above the 2 s design goal (loaded machine?)", failover)
	}
	// A read, asked again after a refusal for want of a leader, as a client would.
	if st, err := e2etest.Retried(func(ctx context.Context) (*idnodev1.StatusResponse, error) {
		return c.Admin[survivors[0]].Status(ctx, &idnodev1.StatusRequest{Consistent: true})
	}); err != nil || !slices.Contains(survivors, st.GetLeader()) {
		t.Errorf("Status after failover = leader %q, %v; want one of %v", st.GetLeader(), err, survivors)
	} else {
		// One election is term+1; more were elections that failed (split votes) on the way.
		t.Logf("failover: term %d before the kill, %d after", termBefore, st.GetTerm())
	}

	// The load keeps going on the survivors.
	e2etest.WaitAcks(t, rec, rec.Acknowledged()+40, ld)

	// The killed node comes back, rejoins, and identities through it continue.
	etagBefore := rec.MaxEtag(leader)
	killed.Restart()
	c.WaitServing(leader)
	e2etest.WaitAcks(t, rec, rec.Acknowledged()+20, ld)
	maxNow, _ := rec.MaxIdentity("orders")
	v, _ := c.MustIdentity(rec, "orders", 1, leader)
	if v <= maxNow {
		t.Errorf("identity via restarted %s: orders/%d, but orders/%d was already acknowledged", leader, v, maxNow)
	}
	if e := c.MustServerSide(rec, "users", leader); e <= etagBefore {
		t.Errorf("restarted %s issued etag %d, but %d before its crash", leader, e, etagBefore)
	}
	ld.Finish(t)
	ld = nil
	e2etest.CheckHistory(t, rec)
}

func TestClusterWholeRestartKeepsCounters(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"SIGTERM", "kill-9"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			c := e2etest.StartCluster(t)
			rec := history.New()

			for i := range 12 {
				c.MustIdentity(rec, "orders", 1, e2etest.ClusterTags[i%3])
				c.MustIdentity(rec, []string{"invoices", "Invoices"}[i%2], int64(1+i%3), e2etest.ClusterTags[(i+1)%3])
			}
			seed := rec.BeginSeed("invoices", 1000, false)
			// A seed sets a value: safe to ask again after a refusal for want of a leader.
			sr, err := e2etest.Retried(func(ctx context.Context) (*idnodev1.SeedIdentityResponse, error) {
				return c.Ids["B"].SeedIdentity(ctx, &idnodev1.SeedIdentityRequest{Name: "invoices", Value: 1000})
			})
			if err != nil || sr.GetValue() != 1000 {
				seed.Unknown()
				t.Fatalf("SeedIdentity(invoices, 1000) = %v, %v; want 1000", sr, err)
			}
			seed.Done(1000)
			if first, _ := c.MustIdentity(rec, "invoices", 1, "C"); first != 1001 {
				t.Fatalf("identity after seeding 1000: invoices/%d, want invoices/1001", first)
			}
			c.NextHiLo(rec, "orders", "A")
			c.NextHiLo(rec, "orders", "B")
			last := c.NextHiLo(rec, "orders", "C")
			// Give back the tail of the newest range, to the node that granted it: its pool
			// takes the tail back. After the restart the pool grants above it: the node cannot
			// prove its pools file current (it stops last, without a quorum to seal it, or is
			// killed), so the tail is a gap (docs/DESIGN.md, "Older copies of a data dir").
			keep := last.GetLow() + 4
			// The return carries a request id, so that a retry after a refusal for want of a
			// leader gets the first attempt's answer, as a client's would.
			ret := &idnodev1.ReturnHiLoRequest{Tag: "orders", End: last.GetHigh(), Last: keep, GrantId: last.GetGrantId(), RequestId: c.RequestID()}
			if resp, err := e2etest.Retried(func(ctx context.Context) (*idnodev1.ReturnHiLoResponse, error) {
				return c.Ids["C"].ReturnHiLo(ctx, ret)
			}); err != nil || !resp.GetReturned() {
				t.Fatalf("ReturnHiLo = %v, %v; want returned", resp, err)
			}
			rec.HiLoReturn("orders", last.GetHigh(), keep)
			for _, tag := range e2etest.ClusterTags {
				for range 3 {
					c.MustServerSide(rec, "users", tag)
				}
			}
			maxOrders, _ := rec.MaxIdentity("orders")
			maxInvoices, _ := rec.MaxIdentity("invoices")
			want := map[string]int64{"orders": maxOrders, "invoices": maxInvoices}
			etags := map[string]uint64{}
			for _, tag := range e2etest.ClusterTags {
				etags[tag] = rec.MaxEtag(tag)
			}

			// Nothing is in flight: every call above has its answer.
			for _, p := range c.Nodes {
				if mode == "SIGTERM" {
					took := p.Stop()
					t.Logf("node %s: clean exit after %v", p.Tag, took.Round(time.Millisecond))
				} else {
					p.Kill9()
				}
			}
			for _, p := range c.Nodes {
				p.Restart()
			}
			c.WaitServing(e2etest.ClusterTags...)
			// Every counter continues right above what was acknowledged: nothing was in
			// flight, so nothing was lost to a gap either.
			if first, _ := c.MustIdentity(rec, "orders", 1, "B"); first != maxOrders+1 {
				t.Errorf("next orders identity after the restart: %d, want %d", first, maxOrders+1)
			}
			if first, _ := c.MustIdentity(rec, "INVOICES", 2, "C"); first != maxInvoices+1 {
				t.Errorf("next invoices identity after the restart: %d, want %d", first, maxInvoices+1)
			}
			// Read after those writes: a read right after the election can be stale (see
			// TestClusterFirstReadAfterRestartIsCurrent).
			want = map[string]int64{"orders": maxOrders + 1, "invoices": maxInvoices + 2}
			// Asked again after a refusal for want of a leader, as a client would.
			list, err := e2etest.Retried(func(ctx context.Context) (*idnodev1.ListIdentitiesResponse, error) {
				return c.Ids["A"].ListIdentities(ctx, &idnodev1.ListIdentitiesRequest{})
			})
			if err != nil {
				t.Fatalf("ListIdentities: %v", err)
			}
			if got := e2etest.IdentityMap(list); !mapsEqual(got, want) {
				t.Errorf("ListIdentities after the restart = %v, want %v", got, want)
			}
			if hl := c.NextHiLo(rec, "orders", "C"); hl.GetLow() <= keep {
				t.Errorf("next HiLo range after the restart [%d, %d], want it above %d", hl.GetLow(), hl.GetHigh(), keep)
			}
			for _, tag := range e2etest.ClusterTags {
				if e := c.MustServerSide(rec, "users", tag); e <= etags[tag] {
					t.Errorf("node %s: etag %d after the restart, %d before", tag, e, etags[tag])
				}
			}
			// Each Status is a read, asked again after a refusal for want of a leader.
			for _, via := range e2etest.ClusterTags {
				st, err := e2etest.Retried(func(ctx context.Context) (*idnodev1.StatusResponse, error) {
					return c.Admin[via].Status(ctx, &idnodev1.StatusRequest{Consistent: true})
				})
				if err != nil || len(st.GetNodes()) != 3 || !slices.Contains(e2etest.ClusterTags, st.GetLeader()) {
					t.Errorf("Status via %s after the restart = %v, %v; want 3 nodes and a leader", via, st, err)
					continue
				}
				for _, n := range st.GetNodes() {
					if p := c.Node(n.GetTag()); n.GetGrpcAddress() != p.GRPCAddr || !n.GetReachable() || !n.GetVoter() {
						t.Errorf("Status via %s after the restart: node %s grpc %q reachable=%v voter=%v; want %s, reachable voter",
							via, n.GetTag(), n.GetGrpcAddress(), n.GetReachable(), n.GetVoter(), p.GRPCAddr)
					}
				}
			}
			e2etest.CheckHistory(t, rec)
		})
	}
}

func mapsEqual(a, b map[string]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func TestClusterMinorityRefusesQuickly(t *testing.T) {
	for _, variant := range []string{"leader+follower frozen", "both followers frozen"} {
		t.Run(variant, func(t *testing.T) {
			c := e2etest.StartCluster(t)
			rec := history.New()
			ld := c.StartLoad(rec, 3, "orders")
			defer func() {
				if ld != nil {
					ld.Finish(t)
				}
			}()
			e2etest.WaitAcks(t, rec, 40, ld)

			leader := c.Leader()
			followers := c.Others(leader)
			frozen, third := []string{leader, followers[0]}, followers[1]
			if variant == "both followers frozen" {
				frozen, third = followers, leader
			}
			frozenAt := time.Now()
			for _, tag := range frozen {
				c.Node(tag).Sigstop()
			}
			thawed := false
			thaw := func() {
				if !thawed {
					thawed = true
					for _, tag := range frozen {
						c.Node(tag).Sigcont()
					}
				}
			}
			defer thaw()
			maxBefore, _ := rec.MaxIdentity("orders")
			t.Logf("froze %v; %s (leader %s) is alone; orders/%d acknowledged so far", frozen, third, leader, maxBefore)

			// The lone node refuses identities, quickly and in words.
			refuse := func() time.Duration {
				t.Helper()
				op := rec.BeginIdentity("orders", 1)
				begin := time.Now()
				ctx, cancel := context.WithTimeout(context.Background(), e2etest.RefusalLimit)
				resp, err := c.Ids[third].Generate(ctx, &idnodev1.GenerateRequest{Id: "orders|", RequestId: c.RequestID()})
				cancel()
				took := time.Since(begin)
				if err == nil {
					first, last, perr := e2etest.ParseIdentities(resp.GetIds(), "orders", 1)
					if perr == nil {
						op.Done(first, last)
					} else {
						op.Unknown()
					}
					t.Fatalf("%s answered orders| with %q while %v were frozen: no quorum, yet an identity", third, resp.GetIds(), frozen)
				}
				op.Unknown() // a refused call may still have been appended: it may commit later
				st := status.Convert(err)
				if st.Code() != codes.Unavailable || !strings.Contains(st.Message(), "no quorum") {
					t.Fatalf("%s refused orders| with %v after %v; want UNAVAILABLE mentioning \"no quorum\"", third, err, took)
				}
				return took
			}
			refuse()
			refusal := time.Since(frozenAt)
			again := refuse()
			t.Logf("%s: identity refused %d ms after the freeze (%d ms for a second call): %q",
				third, refusal.Milliseconds(), again.Milliseconds(), "no quorum …")
			if refusal > 3*time.Second {
				t.Errorf("the refusal came %v after the freeze, want < 3 s", refusal)
			}

			// Local strategies keep working on it.
			if _, err := c.ServerSide(rec, "users", third, e2etest.RPCTimeout); err != nil {
				t.Errorf("server-side ID on the lone node: %v", err)
			}
			g, err := c.Ids[third].Generate(e2etest.RPCCtx(t), &idnodev1.GenerateRequest{Id: ""})
			if err != nil || len(g.GetIds()) != 1 {
				t.Errorf("GUID on the lone node: %v, %v", g, err)
			} else {
				rec.GUID(g.GetIds()[0])
			}
			if third == leader {
				// The old leader, cut off from both followers, must step down.
				e2etest.Eventually(t, 3*time.Second, "the lone old leader steps down", func() error {
					st, err := c.Admin[third].Status(e2etest.RPCCtx(t), &idnodev1.StatusRequest{})
					if err != nil {
						return err
					}
					for _, n := range st.GetNodes() {
						if n.GetTag() == third && n.GetState() == "leader" {
							return fmt.Errorf("%s still says it is the leader", third)
						}
					}
					if st.GetLeader() != "" {
						return fmt.Errorf("%s still names leader %s", third, st.GetLeader())
					}
					return nil
				})
			}
			hc := c.Health[third]
			e2etest.Eventually(t, 3*time.Second, "consensus health NOT_SERVING on the lone node", func() error {
				if s := e2etest.HealthOf(hc, "idnode.v1.IdService/consensus"); s != "NOT_SERVING" {
					return errors.New(s)
				}
				return nil
			})
			if s := e2etest.HealthOf(hc, "idnode.v1.IdService/local"); s != "SERVING" {
				t.Errorf("local health on the lone node: %s, want SERVING", s)
			}
			if s := e2etest.HealthOf(hc, ""); s != "NOT_SERVING" {
				t.Errorf(`overall ("") health on the lone node: %s, want NOT_SERVING`, s)
			}
			if ld.Ops.Load() == 0 {
				t.Fatal("load made no progress")
			}

			// Thaw: identities continue above every value acknowledged before.
			thaw()
			maxNow, _ := rec.MaxIdentity("orders")
			var next int64
			e2etest.Eventually(t, e2etest.LeaderTimeout, "an identity via "+third+" after the thaw", func() error {
				first, _, err := c.Identity(rec, "orders", 1, slices.Index(e2etest.ClusterTags, third), time.Second, time.Second)
				next = first
				return err
			})
			if next <= maxNow {
				t.Errorf("identity after the thaw orders/%d, but orders/%d was acknowledged before", next, maxNow)
			}
			e2etest.Eventually(t, e2etest.LeaderTimeout, "consensus health SERVING again on "+third, func() error {
				if s := e2etest.HealthOf(hc, "idnode.v1.IdService/consensus"); s != "SERVING" {
					return errors.New(s)
				}
				return nil
			})
			e2etest.WaitAcks(t, rec, rec.Acknowledged()+30, ld)
			ld.Finish(t)
			ld = nil
			e2etest.CheckHistory(t, rec)
		})
	}
}

func TestClusterRemovedTagNeverReturns(t *testing.T) {
	t.Parallel()
	c := e2etest.StartCluster(t)
	rec := history.New()
	a := c.Node("A")

	// A fourth node joins and is given the next tag, D.
	dDir, dGRPC, dRaft := t.TempDir(), e2etest.FreeAddr(t), e2etest.FreeAddr(t)
	d := e2etest.StartNode(t, e2etest.NodeOpts{Tag: "D", GRPCAddr: dGRPC, RawArgs: []string{
		"--join", a.GRPCAddr, "--data-dir", dDir, "--grpc-addr", dGRPC, "--raft-addr", dRaft, "--http-addr", "",
	}})
	d.WaitServing(e2etest.ClusterJoinWait)
	dIDs, dAdmin := e2etest.Dial(t, dGRPC)
	st, err := dAdmin.Status(e2etest.RPCCtx(t), &idnodev1.StatusRequest{})
	if err != nil || st.GetSelf() != "D" {
		t.Fatalf("Status via the joined node = self %q, %v; want D", st.GetSelf(), err)
	}
	st = c.WaitVoter("D")
	voters := map[string]bool{}
	for _, n := range st.GetNodes() {
		voters[n.GetTag()] = n.GetVoter()
	}
	if len(voters) != 4 || !voters["D"] || !voters["A"] || !voters["B"] || !voters["C"] {
		t.Fatalf("Status after the join lists %v, want voters A, B, C, D", voters)
	}
	call := rec.Now()
	resp, err := dIDs.Generate(e2etest.RPCCtx(t), &idnodev1.GenerateRequest{Id: "users/"})
	if err != nil || len(resp.GetIds()) != 1 || resp.GetIds()[0] != "users/0000000000000000001-D" {
		t.Fatalf("Generate(users/) via D = %v, %v; want users/0000000000000000001-D", resp, err)
	}
	rec.ServerSideID(call, resp.GetIds()[0], "D", 1)
	call = rec.Now()
	// Asked again with its request id after a refusal for want of a leader, as a client would.
	req := &idnodev1.GenerateRequest{Id: "orders|", RequestId: c.RequestID()}
	if resp, err := e2etest.Retried(func(ctx context.Context) (*idnodev1.GenerateResponse, error) { return dIDs.Generate(ctx, req) }); err != nil || len(resp.GetIds()) != 1 || resp.GetIds()[0] != "orders/1" {
		t.Fatalf("Generate(orders|) via D = %v, %v; want orders/1", resp, err)
	}
	rec.AddIdentity(history.IdentityRecord{Prefix: "orders", Count: 1, Call: call, Return: rec.Now(), Known: true, First: 1, Last: 1})

	// D is removed: its tag is retired for ever.
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if _, err := c.Admin["B"].RemoveNode(ctx, &idnodev1.RemoveNodeRequest{Tag: "D"}); err != nil {
		t.Fatalf("RemoveNode(D): %v", err)
	}
	d.Kill9() // out of the cluster; how a removed node winds down is not this test's subject
	// A read, asked again after a refusal for want of a leader, as a client would.
	st, err = e2etest.Retried(func(ctx context.Context) (*idnodev1.StatusResponse, error) {
		return c.Admin["C"].Status(ctx, &idnodev1.StatusRequest{Consistent: true})
	})
	if err != nil {
		t.Fatalf("Status after RemoveNode: %v", err)
	}
	var tags []string
	for _, n := range st.GetNodes() {
		tags = append(tags, n.GetTag())
	}
	slices.Sort(tags)
	if !slices.Equal(tags, e2etest.ClusterTags) {
		t.Errorf("Status after RemoveNode(D) lists %q, want %q", tags, e2etest.ClusterTags)
	}

	// A new node asking for D must not start.
	bin := e2etest.BuildIdnode(t)
	jctx, jcancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer jcancel()
	// No HTTP: its default address may be another test's, and the warning would be a second line.
	cmd := exec.CommandContext(jctx, bin, "--join", a.GRPCAddr, "--tag", "D", "--data-dir", t.TempDir(),
		"--grpc-addr", e2etest.FreeAddr(t), "--raft-addr", e2etest.FreeAddr(t), "--http-addr", "")
	cmd.Dir, cmd.Env = t.TempDir(), nodeenv.Clean()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() <= 0 {
		t.Errorf("idnode --join --tag D after D was removed: %v, want a non-zero exit (stderr %q)", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "idnode: ") ||
		!(strings.Contains(lines[0], "retired") || strings.Contains(lines[0], "already exists")) {
		t.Errorf("idnode --join --tag D: stderr %q, want one line \"idnode: …\" saying the tag is retired", stderr.String())
	}
	t.Logf("a new node asking for the retired tag D: %v, %s", err, strings.TrimSpace(stderr.String()))

	// Nor may an operator add it.
	addD := &idnodev1.AddNodeRequest{Tag: "D", RaftAddress: e2etest.FreeAddr(t), GrpcAddress: e2etest.FreeAddr(t)}
	_, err = e2etest.Retried(func(ctx context.Context) (*idnodev1.AddNodeResponse, error) { return c.Admin["C"].AddNode(ctx, addD) })
	if status.Code(err) != codes.AlreadyExists {
		t.Errorf("AddNode(D) after RemoveNode(D) = %v, want ALREADY_EXISTS", err)
	}

	// C comes back with an empty data dir under its old tag and flags: it must not start, since
	// its etag would restart at 1 and its empty log would vote as the old C's.
	for range 3 {
		c.MustServerSide(rec, "users", "C")
	}
	cp := c.Node("C")
	cp.Stop()
	if err := os.RemoveAll(cp.DataDir); err != nil {
		t.Fatal(err)
	}
	cp.Restart()
	cst, err := cp.WaitExit(e2etest.ServeTimeout)
	if err != nil {
		t.Fatalf("C with an empty data dir did not refuse to start: %v", err)
	}
	if out := cp.Logs.String(); cst.ExitCode() == 0 || !strings.Contains(out, "cluster already exists") {
		t.Fatalf("C with an empty data dir exited with %v, want a non-zero exit saying the cluster exists. Output:\n%s", cst, out)
	}
	// The rest of the cluster is unaffected (once it has elected a leader, if C led).
	c.Leader("A", "B")
	for _, via := range []string{"A", "B"} {
		c.MustIdentity(rec, "orders", 1, via)
		c.MustServerSide(rec, "users", via)
	}
	e2etest.CheckHistory(t, rec)
}

// TestClusterFirstReadAfterRestartIsCurrent: ListIdentities is linearizable.
// The first answer a restarted cluster gives must therefore hold every value acknowledged
// before the restart. (It failed while reads relied on raft's VerifyLeader alone: a new
// leader's FSM had not applied the entries of earlier terms yet.)
func TestClusterFirstReadAfterRestartIsCurrent(t *testing.T) {
	t.Parallel()
	c := e2etest.StartCluster(t)
	rec := history.New()
	for i := range 6 {
		c.MustIdentity(rec, "orders", 1, e2etest.ClusterTags[i%3])
	}
	for _, p := range c.Nodes {
		p.Stop()
	}
	for _, p := range c.Nodes {
		p.Restart()
	}
	// Ask all three nodes as fast as they answer; the very first answer counts.
	list, via := c.FirstListIdentities(t)
	if got, want := e2etest.IdentityMap(list), map[string]int64{"orders": 6}; !mapsEqual(got, want) {
		t.Errorf("first ListIdentities after a whole-cluster restart (via %s) = %v, want %v: a stale read", via, got, want)
	}
}

// TestClusterJoinWithRaftAddrOnly runs README's join command: --join, --data-dir,
// --grpc-addr and --raft-addr, no --raft-advertise. (It failed while the --join path did not
// derive the advertised Raft address.)
func TestClusterJoinWithRaftAddrOnly(t *testing.T) {
	t.Parallel()
	c := e2etest.StartCluster(t)
	dGRPC, dRaft := e2etest.FreeAddr(t), e2etest.FreeAddr(t)
	d := e2etest.StartNode(t, e2etest.NodeOpts{Tag: "D", GRPCAddr: dGRPC, RawArgs: []string{
		"--join", c.Node("A").GRPCAddr, "--data-dir", t.TempDir(), "--grpc-addr", dGRPC, "--raft-addr", dRaft, "--http-addr", "",
	}})
	d.WaitServing(e2etest.ClusterJoinWait)
	for _, n := range c.WaitVoter("D").GetNodes() {
		if n.GetTag() == "D" && n.GetRaftAddress() != dRaft {
			t.Errorf("joined node D: raft %s, want its --raft-addr %s", n.GetRaftAddress(), dRaft)
		}
	}
}
