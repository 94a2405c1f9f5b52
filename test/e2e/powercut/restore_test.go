package powercut

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/client"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/reason"
	"github.com/idnode/idnode/series"
	"github.com/idnode/idnode/test/e2e/e2etest"
	"github.com/idnode/idnode/test/helpers/ledger"
	"github.com/idnode/idnode/test/helpers/lossyfs"
	"github.com/idnode/idnode/test/helpers/nodeenv"
)

// The backup the restore schedule restores: a cluster of one node tagged Z (the power
// cluster's tags must differ from it, docs/backups.md) that raised the load's identity and
// HiLo tag far above the load, and numbered a few series, the first one long enough to be
// restored in two chunks. A restore is one log entry for the floors, then one per chunk.
const (
	restoreTag     = "Z"
	restoreFloor   = 1_000_000 // the backup's identity orders and HiLo Max of pool
	restoreSeries  = 3         // series in the backup
	restoreEntries = 10        // numbers issued in each but the first
	// restoreLong is the first series' numbers: a whole chunk and a few more.
	restoreLong    = series.MaxRestoreEntries + 10
	restoreIssuers = 8 // goroutines issuing them, coalesced by the node
	// restoreSyncs bounds the Raft log sync, counted from the start of idctl restore, at
	// which the cluster is cut: each of the restore's entries is synced on three nodes.
	restoreSyncs = 3 * (1 + 1 + restoreSeries)
)

// backup is the backup file, the heads of its series and the hashes of their entries
// (hashes[name][seq-1]), by name.
type backup struct {
	file   string
	heads  map[string]*idnodev1.Series
	hashes map[string][]string
}

// makeBackup starts the node Z on a plain data dir, writes what the backup holds, backs it
// up with idctl and stops the node.
func makeBackup(t *testing.T) backup {
	t.Helper()
	p := e2etest.StartNode(t, e2etest.NodeOpts{Tag: restoreTag})
	p.WaitServing(e2etest.ServeTimeout)
	cl, err := client.Dial(context.Background(), []string{p.GRPCAddr})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cl.Close(context.Background()) }()
	ctx, cancel := context.WithTimeout(context.Background(), e2etest.LoadTimeout)
	defer cancel()
	if _, err := cl.SeedIdentity(ctx, identityName, restoreFloor, false); err != nil {
		t.Fatalf("node %s: SeedIdentity: %v", restoreTag, err)
	}
	if _, err := cl.SeedHiLo(ctx, hiloTag, restoreFloor); err != nil {
		t.Fatalf("node %s: SeedHiLo: %v", restoreTag, err)
	}
	for i := range restoreSeries {
		name := fmt.Sprintf("R%d", i+1)
		if _, err := cl.Series().Create(ctx, &idnodev1.CreateSeriesRequest{Name: name, Format: name + "-{n:04}"}); err != nil {
			t.Fatalf("node %s: CreateSeries(%s): %v", restoreTag, name, err)
		}
		n := restoreEntries
		if i == 0 {
			n = restoreLong
		}
		issue(t, cl, name, n)
	}
	list, err := cl.Series().List(ctx)
	if err != nil {
		t.Fatalf("node %s: ListSeries: %v", restoreTag, err)
	}
	b := backup{file: filepath.Join(t.TempDir(), "z.backup"), heads: map[string]*idnodev1.Series{}, hashes: map[string][]string{}}
	for _, s := range list {
		b.heads[s.GetName()] = s
		err := cl.Series().Journal(ctx, s.GetName(), 1, 0, func(e *idnodev1.SeriesEntry) error {
			b.hashes[s.GetName()] = append(b.hashes[s.GetName()], e.GetHash())
			return nil
		})
		if err != nil {
			t.Fatalf("node %s: Journal(%s): %v", restoreTag, s.GetName(), err)
		}
	}
	e2etest.MustIdctl(t, nil, "--addr", p.GRPCAddr, "backup", b.file)
	p.Stop()
	return b
}

// issue issues n numbers of a series from restoreIssuers goroutines.
func issue(t *testing.T, cl *client.Client, name string, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), e2etest.LoadTimeout)
	defer cancel()
	var next atomic.Int32
	errs := make(chan error, restoreIssuers)
	var wg sync.WaitGroup
	for range restoreIssuers {
		wg.Go(func() {
			for next.Add(1) <= int32(n) {
				if _, err := cl.Series().Issue(ctx, &idnodev1.IssueRequest{Series: name}); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("node %s: Issue(%s): %v", restoreTag, name, err)
	}
}

// restoreState is how much of the backup a cluster holds: whether the floors were raised
// (the restore's first entry), which series came back whole, and which hold only their
// first whole chunks (the restore was cut between two).
type restoreState struct {
	floors  bool
	series  []string
	chunked []string
}

func (s restoreState) complete() bool { return s.floors && len(s.series) == restoreSeries }

func (s restoreState) String() string {
	switch {
	case s.complete():
		return "complete"
	case !s.floors && len(s.series)+len(s.chunked) == 0:
		return "as before the restore"
	}
	return fmt.Sprintf("half restored (floors raised: %v; series back: %v; series cut between chunks: %v)", s.floors, s.series, s.chunked)
}

// restoreState reads how much of b the cluster holds. A series that is there but is not
// the backup's, or not the backup's first whole chunks, is a broken promise (a chunk is one
// log entry: it is applied whole or not at all), as are series back without the floors,
// which the restore raises first.
func (pc *powerCluster) restoreState(b backup) restoreState {
	pc.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*e2etest.LeaderTimeout)
	defer cancel()
	var st restoreState
	ids, err := pc.cl.ListIdentities(ctx, &idnodev1.ListIdentitiesRequest{})
	if err != nil {
		pc.t.Fatalf("ListIdentities: %v", err)
	}
	identityRaised := e2etest.IdentityMap(ids)[identityName] >= restoreFloor
	tags, err := pc.cl.ListHiLo(ctx, &idnodev1.ListHiLoRequest{})
	if err != nil {
		pc.t.Fatalf("ListHiLo: %v", err)
	}
	hiloRaised := false
	for _, tg := range tags.GetTags() {
		hiloRaised = hiloRaised || (tg.GetTag() == hiloTag && tg.GetMax() >= restoreFloor)
	}
	if identityRaised != hiloRaised {
		pc.problem("restore: identity %s raised %v but HiLo %s raised %v: one log entry raises both", identityName, identityRaised, hiloTag, hiloRaised)
	}
	st.floors = identityRaised && hiloRaised
	list, err := pc.cl.Series().List(ctx)
	if err != nil {
		pc.t.Fatalf("ListSeries: %v", err)
	}
	for _, s := range list {
		want, ok := b.heads[s.GetName()]
		n := s.GetEntries()
		switch {
		case !ok:
		case n == want.GetEntries() && s.GetHeadHash() == want.GetHeadHash():
			st.series = append(st.series, s.GetName())
		case n > 0 && n < want.GetEntries() && n%series.MaxRestoreEntries == 0 && s.GetHeadHash() == b.hashes[s.GetName()][n-1]:
			st.chunked = append(st.chunked, s.GetName())
		default:
			pc.problem("restore: series %s holds %d entries, head %s; the backup's %d, head %s, in chunks of %d",
				s.GetName(), n, s.GetHeadHash(), want.GetEntries(), want.GetHeadHash(), series.MaxRestoreEntries)
		}
	}
	if len(st.series)+len(st.chunked) > 0 && !st.floors {
		pc.problem("restore: series %v are back but the floors, raised by an earlier log entry, are not", append(st.series, st.chunked...))
	}
	return st
}

// refusesWhileChunked checks that each series the restore left between two chunks refuses an
// issue, FAILED_PRECONDITION with reason SERIES_RESTORING: its next number is one the backup
// gave to another document.
func (pc *powerCluster) refusesWhileChunked(st restoreState) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*e2etest.LeaderTimeout)
	defer cancel()
	for _, name := range st.chunked {
		e, err := pc.cl.Series().Issue(ctx, &idnodev1.IssueRequest{Series: name})
		if status.Code(err) != codes.FailedPrecondition || reason.Of(err) != reason.SeriesRestoring {
			pc.problem("restore: an issue into series %s, cut between two chunks, answered %v, %v; want FAILED_PRECONDITION %s",
				name, e.GetId(), err, reason.SeriesRestoring)
		}
	}
}

// idctlRun is an idctl process started by startIdctl; done is closed once it exited.
type idctlRun struct {
	done chan struct{}
	out  string
	err  error
}

// startIdctl runs idctl with args against the cluster's nodes, in the background.
func (pc *powerCluster) startIdctl(args ...string) *idctlRun {
	pc.t.Helper()
	bin := e2etest.BuildIdctl(pc.t)
	var addrs []string
	for _, p := range pc.c.Nodes {
		addrs = append(addrs, p.GRPCAddr)
	}
	r := &idctlRun{done: make(chan struct{})}
	go func() {
		defer close(r.done)
		ctx, cancel := context.WithTimeout(context.Background(), e2etest.LoadTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, append([]string{"--addr", strings.Join(addrs, ","), "--timeout", "3s"}, args...)...)
		cmd.Env = nodeenv.Clean()
		cmd.WaitDelay = time.Second
		out, err := cmd.CombinedOutput()
		r.out, r.err = string(out), err
	}()
	return r
}

// TestPowerCutDuringRestore cuts the power of the whole cluster while idctl restore puts a
// backup back, at one of the Raft log syncs the restore brings (the load waits meanwhile, so
// they are the restore's), or just after idctl was answered if the restore was quicker. After
// the restart the cluster must hold all of the backup if idctl had its answer, and otherwise
// all, none, or the floors first and then whole series: never a series cut short, never
// series without the floors. Then idctl restore is run again, as docs/backups.md allows, and
// must complete it; from the moment the floors are back, no identity or HiLo range at or
// below the backup's is handed out.
func TestPowerCutDuringRestore(t *testing.T) {
	const schedule = "whole-cluster-during-restore"
	b := makeBackup(t)
	pc := startPowerCluster(t, "")
	pc.startLoad()
	pc.waitAcks(100)
	pc.load.pause()
	resume := sync.OnceFunc(pc.load.resume)
	t.Cleanup(resume)

	at := 1 + rand.IntN(restoreSyncs)
	var syncs atomic.Int32
	fired := pc.freezeAllOnSync(func(p string) bool { return beforeSync[0].match(p) && syncs.Add(1) == int32(at) })
	run := pc.startIdctl("restore", b.file)
	acked := false
	select {
	case where := <-fired:
		pc.note(fmt.Sprintf("frozen at Raft log sync %d since idctl restore started (%s)", at, where))
	case <-run.done:
		if run.err != nil {
			t.Fatalf("idctl restore failed without a cut: %v\n%s", run.err, run.out)
		}
		acked = true
		for _, m := range pc.mounts {
			m.Freeze()
		}
		pc.note(fmt.Sprintf("restore answered before Raft log sync %d: frozen after it", at))
	case <-time.After(hookTimeout):
		t.Fatalf("idctl restore brought no %d Raft log syncs and no answer within %v", at, hookTimeout)
	}
	pc.cut(lossyfs.Clean, e2etest.ClusterTags...)
	// The load goes on only now: no call of it was in flight when the power went, so none
	// answered after the restart can carry a value the cluster gave before the restore.
	resume()
	<-run.done
	if !acked && run.err == nil {
		acked = true
		pc.note("idctl restore was answered before the cut")
	}
	afterCut := pc.led.Mark()
	serving := pc.restart(e2etest.ClusterTags...)
	if len(serving) < 2 {
		kept(t, pc.check(schedule, serving))
		return
	}
	st := pc.restoreState(b)
	pc.note("came back " + st.String())
	pc.refusesWhileChunked(st)
	if acked && !st.complete() {
		pc.problem("restore: idctl restore was answered before the cut, but the cluster came back %v", st)
	}
	pc.waitAcks(pc.led.Acked() + 50) // the load, served by the cluster as it came back
	if st.floors {
		pc.noRepeatOfBackup(afterCut, "came back with its floors raised")
	}
	if !st.complete() {
		// Retried as the refusal tells an operator to: the cluster that came back may still be
		// electing, and a restore only raises floors, so a second try does no harm.
		e2etest.MustIdctlRetrying(t, nil, "--addr", pc.c.Node(serving[0]).GRPCAddr, "restore", b.file)
		if again := pc.restoreState(b); !again.complete() {
			pc.problem("restore: idctl restore run again after the cut left the cluster %v", again)
		}
	}
	pc.load.pause()
	restored := pc.led.Mark()
	pc.load.resume()
	pc.waitAcks(pc.led.Acked() + afterCutAcks)
	pc.noRepeatOfBackup(restored, "was restored")
	ctx, cancel := context.WithTimeout(context.Background(), 2*e2etest.LeaderTimeout)
	defer cancel()
	for name, head := range b.heads {
		v, err := pc.cl.Series().Verify(ctx, name)
		if err != nil {
			t.Fatalf("VerifySeries(%s): %v", name, err)
		}
		if !v.GetOk() || v.GetEntries() != head.GetEntries() {
			pc.problem("restore: series %s: VerifySeries ok=%v over %d entries (want %d); first break at entry %d: %s",
				name, v.GetOk(), v.GetEntries(), head.GetEntries(), v.GetBreakSeq(), v.GetBreakReason())
		}
	}
	kept(t, pc.check(schedule, serving))
}

// noRepeatOfBackup is a broken promise for an identity or HiLo range acknowledged after m at
// or below the backup's: the cluster held the backup's floors from m on (when), so that
// number was the backup cluster's too (a node's HiLo pool grants nothing below the floor).
func (pc *powerCluster) noRepeatOfBackup(m ledger.Mark, when string) {
	pc.t.Helper()
	identity, hilo := pc.led.LowestSince(m)
	if identity != 0 && identity <= restoreFloor {
		pc.problem("restore: the cluster %s, then handed out identity %s %d, at or below the backup's %d", when, identityName, identity, restoreFloor)
	}
	if hilo != 0 && hilo <= restoreFloor {
		pc.problem("restore: the cluster %s, then handed out a HiLo %s range from %d, at or below the backup's Max %d", when, hiloTag, hilo, restoreFloor)
	}
	pc.t.Logf("lowest answers since the cluster %s: identity %d, HiLo low %d (the backup's floor %d)", when, identity, hilo, restoreFloor)
}
