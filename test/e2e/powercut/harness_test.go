package powercut

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/idnode/idnode/client"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
	"github.com/idnode/idnode/test/helpers/lossyfs"
)

// Bounds of a schedule, on top of e2etest's.
const (
	hookTimeout = 30 * time.Second // until the load brings the chosen sync
	loadWorkers = 4
)

// etagOlderWarning is what a node logs when its etag file is below the cluster's record of
// its watermark. The node records a watermark only once its file holds it durably, so after
// a power cut this means the file lost a durable write.
const etagOlderWarning = "the etag file is older than the cluster's record of this node"

// powerCluster is three idnode processes, each on its own lossy mount, a Go client of all
// three and the ledger of what it was answered.
type powerCluster struct {
	t      *testing.T
	c      *e2etest.Cluster
	mounts map[string]*lossyfs.FS
	cl     *client.Client
	led    *loadLedger
	load   *load
	lost   lossyfs.Report // what the cuts dropped, each path under its node's tag
	notes  []string
	// build names the daemon's build tags in the schedule's line when it is not this tree's
	// plain build, so that a reader of CI's log tells a deliberately broken run from the others.
	build string
	// problems are the promises a cut broke: numbers repeated or lost, a cluster that does
	// not come back, a node that refuses to start. check returns them.
	problems []string
	// damaged are the nodes whose data dir the test itself damaged, each with what it did:
	// only they may refuse to start (damage).
	damaged map[string]string
}

func (pc *powerCluster) problem(format string, args ...any) {
	pc.problems = append(pc.problems, fmt.Sprintf(format, args...))
}

// snapshotFlags make the nodes snapshot every few dozen entries, so that a schedule of a few
// seconds writes snapshots, and cuts in the middle of one.
var snapshotFlags = []string{"--raft-snapshot-threshold", "16", "--raft-snapshot-interval", "1s"}

// startPowerCluster mounts three lossy filesystems and starts a cluster on them, with bin as
// the daemon ("" for this tree's), and dials it; startLoad starts the load.
func startPowerCluster(t *testing.T, bin string) *powerCluster {
	t.Helper()
	lossyfs.Need(t)
	pc := &powerCluster{t: t, mounts: map[string]*lossyfs.FS{}, led: newLedger(), damaged: map[string]string{}}
	for _, tag := range e2etest.ClusterTags {
		pc.mounts[tag] = lossyfs.Mount(t)
	}
	pc.c = e2etest.StartClusterWith(t, func(tag string) e2etest.NodeOpts {
		return e2etest.NodeOpts{DataDir: pc.mounts[tag].Dir, Binary: bin, Extra: snapshotFlags}
	})
	var addrs []string
	for _, p := range pc.c.Nodes {
		addrs = append(addrs, p.GRPCAddr)
	}
	cl, err := client.Dial(context.Background(), addrs, client.WithCallTimeout(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cl.Close(context.Background()) })
	pc.cl = cl
	pc.createSeries()
	t.Cleanup(func() {
		if pc.load != nil {
			pc.load.finish()
		}
	})
	return pc
}

// startLoad starts the load of the Go client.
func (pc *powerCluster) startLoad() { pc.load = startLoad(pc.t, pc.cl, pc.led, loadWorkers) }

// waitAcks waits until the load has had n answers in all.
func (pc *powerCluster) waitAcks(n int) { pc.t.Helper(); pc.waitAcksWithin(n, e2etest.LoadTimeout) }

// waitAcksWithin is waitAcks with its own bound.
func (pc *powerCluster) waitAcksWithin(n int, timeout time.Duration) {
	pc.t.Helper()
	e2etest.Eventually(pc.t, timeout, fmt.Sprintf("%d answers to the load", n), func() error {
		if got := pc.led.Acked(); got < n {
			return fmt.Errorf("%d so far", got)
		}
		return nil
	})
}

// cut is the power cut of nodes tags: SIGKILL to each, then their mounts cut (mode), then
// the processes reaped. What the mounts dropped goes into pc.lost.
func (pc *powerCluster) cut(mode lossyfs.CutMode, tags ...string) {
	pc.t.Helper()
	for _, tag := range tags {
		pc.c.Node(tag).Signal(syscall.SIGKILL)
	}
	for _, tag := range tags {
		rep, err := pc.mounts[tag].Cut(mode)
		if err != nil {
			pc.t.Fatalf("node %s: %v", tag, err)
		}
		for _, e := range rep.Errors {
			pc.t.Errorf("node %s: the cut could not take back: %s", tag, e)
		}
		pc.t.Logf("node %s, cut %v: %v", tag, mode, rep)
		pc.lost.Merge(tag+":", rep)
	}
	for _, tag := range tags {
		if _, err := pc.c.Node(tag).WaitExit(e2etest.StopTimeout); err != nil {
			pc.t.Fatalf("node %s after SIGKILL and the cut: %v", tag, err)
		}
	}
	pc.led.cut()
}

// freezeAllOnSync arms every mount: the first sync of a path match accepts, on any node,
// freezes all three mounts; the returned channel then gives that node and path.
func (pc *powerCluster) freezeAllOnSync(match func(path string) bool) <-chan string {
	fired := make(chan string, 1)
	var once sync.Once
	for _, tag := range e2etest.ClusterTags {
		pc.mounts[tag].CutOnSync(match, func(path string) {
			once.Do(func() {
				for _, m := range pc.mounts {
					m.Freeze()
				}
				fired <- tag + ":" + path
			})
		})
	}
	return fired
}

// damage records that the test itself damaged node tag's data dir (what says how), beyond
// anything a power cut does: restart then takes its refusal to start, naming a file of its
// data dir, as the answer to that damage rather than a broken promise.
func (pc *powerCluster) damage(tag, what string) { pc.damaged[tag] = what }

// restart starts nodes tags again on their data dirs and returns the tags that serve. A
// correct build comes back from a power cut, so a node that does not serve is a broken
// promise, unless the test damaged its data dir (damage) and it refused to start with a
// message that names that data dir.
func (pc *powerCluster) restart(tags ...string) []string {
	pc.t.Helper()
	for _, tag := range tags {
		pc.c.Node(tag).Restart()
	}
	var serving []string
	for _, tag := range tags {
		p := pc.c.Node(tag)
		_, done := p.Current()
		err := e2etest.PollServing(pc.t, p.GRPCAddr, e2etest.ServeTimeout, done)
		if err == nil {
			serving = append(serving, tag)
			continue
		}
		st, werr := p.WaitExit(time.Second)
		out := p.Logs.String()
		out = out[strings.LastIndex(out, "----- start #"):]
		switch {
		case werr != nil:
			pc.t.Fatalf("node %s neither serves nor exits after the cut: %v\n%s", tag, err, out)
		case st.ExitCode() == 0:
			pc.t.Fatalf("node %s exited cleanly after the cut instead of serving or refusing:\n%s", tag, out)
		case pc.damaged[tag] == "":
			pc.problem("node %s refused to start after the cut, which a correct build never does: %s", tag, lastLine(out))
		case !strings.Contains(out, p.DataDir):
			pc.problem("node %s, whose data dir the test damaged (%s), refused to start without naming a file of its data dir %s:\n%s", tag, pc.damaged[tag], p.DataDir, out)
		default:
			pc.note(fmt.Sprintf("node %s refused to start after the test's damage (%s): %.160s", tag, pc.damaged[tag], lastLine(out)))
		}
	}
	if len(serving) > 0 {
		pc.c.WaitServing(serving...)
	}
	return serving
}

func lastLine(out string) string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := lines[i]; strings.Contains(l, "idnode:") {
			return l
		}
	}
	return lines[len(lines)-1]
}

func (pc *powerCluster) note(s string) {
	pc.t.Log(s)
	pc.notes = append(pc.notes, s)
}

// check stops the load and returns the broken promises: any number handed out twice, an
// acknowledged identity, HiLo maximum or series entry no longer in the cluster (read through
// the nodes in serving), a series journal that does not verify, fewer than two nodes serving.
// It prints the schedule's line.
func (pc *powerCluster) check(schedule string, serving []string) []string {
	pc.t.Helper()
	pc.load.finish()
	pc.load = nil
	for _, r := range pc.led.repeats() {
		pc.problem("handed out twice across the cut: %s", r)
	}
	for _, w := range pc.led.wrongAnswers() {
		pc.problem("a wrong answer: %s", w)
	}
	for _, p := range pc.c.Nodes {
		out := p.Logs.String()
		if i := strings.LastIndex(out, "----- start #"); i >= 0 && strings.Contains(out[i:], etagOlderWarning) {
			pc.problem("node %s: its etag file came back older than the watermark it had made durable and recorded in the cluster (%q): a durable write was lost", p.Tag, etagOlderWarning)
		}
	}
	identity, hilo := pc.led.Maxima()
	var series seriesCheck
	if len(serving) >= 2 {
		ctx, cancel := context.WithTimeout(context.Background(), 2*e2etest.LeaderTimeout)
		defer cancel()
		ids, err := pc.cl.ListIdentities(ctx, &idnodev1.ListIdentitiesRequest{})
		if err != nil {
			pc.t.Fatalf("ListIdentities after the cut: %v", err)
		}
		if got := e2etest.IdentityMap(ids)[identityName]; got < identity {
			pc.problem("identity %s is %d after the cut, but %d was acknowledged before it", identityName, got, identity)
		}
		tags, err := pc.cl.ListHiLo(ctx, &idnodev1.ListHiLoRequest{})
		if err != nil {
			pc.t.Fatalf("ListHiLo after the cut: %v", err)
		}
		var got int64
		for _, tg := range tags.GetTags() {
			if tg.GetTag() == hiloTag {
				got = tg.GetMax()
			}
		}
		if got < hilo {
			pc.problem("HiLo %s reserves up to %d after the cut, but a range up to %d was acknowledged before it", hiloTag, got, hilo)
		}
		series = pc.checkSeries(ctx)
	} else {
		pc.problem("only %v serve after the cut: without a quorum nothing acknowledged can be read back", serving)
	}
	if pc.build != "" {
		schedule += " build=" + pc.build
	}
	line := fmt.Sprintf("powercut schedule=%s acks=%d failed_calls=%d identity_max=%d hilo_max=%d numeric_ids=%d series_acks=%d %v broken_promises=%d dropped: %s",
		schedule, pc.led.Acked(), pc.led.Failures(), identity, hilo, pc.led.IDs(numericKind), len(pc.led.seriesAcks()), series, len(pc.problems), pc.lost.Summary())
	if len(pc.notes) > 0 {
		line += "; " + strings.Join(pc.notes, "; ")
	}
	e2etest.Summarize(pc.t, line)
	pc.t.Logf("dropped, by file:\n%v", pc.lost)
	return pc.problems
}
