package crashstates

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
	"github.com/idnode/idnode/test/helpers/ledger"
	"github.com/idnode/idnode/test/helpers/lossyfs"
)

// Bounds of one explored state.
const (
	afterRestartAcks = 12               // answers after the restart, each checked against the promises
	afterRestartFor  = 20 * time.Second // for those answers
	refusalExit      = time.Second      // a node that does not serve must have exited by then
)

// etagOlderWarning is what a node logs when its etag file is below the cluster's record of
// its watermark. The node records a watermark only once its file holds it durably, so after
// a power cut this means the file lost a durable write.
const etagOlderWarning = "the etag file is older than the cluster's record of this node"

// cut says which nodes lose power at a point: the node whose fsync it is alone (the others
// are killed at the same moment and keep all they wrote), or all three.
type cut string

const (
	cutNode    cut = "node"
	cutCluster cut = "cluster"
)

// state is one explored state: a cut just after the fsync r.ops[point].
type state struct {
	point int
	cut   cut
}

func (s state) String() string { return fmt.Sprintf("%s cut after op %d", s.cut, s.point+1) }

// outcome is what exploring a state found.
type outcome struct {
	problems []string // broken promises
	refused  []string // nodes that refused to start, naming their data dir
	dropped  lossyfs.Report
}

// explore starts the cluster on state s and checks it: every node serves or refuses to start
// naming its data dir; at least two serve; every identity and HiLo maximum promised before
// the cut is still there; answers after the restart repeat nothing promised. The nodes are
// killed and the state removed before it returns.
func (r *recorded) explore(s state) outcome {
	r.t.Helper()
	var o outcome
	at := r.ops[s.point]
	dir := filepath.Join(r.root, fmt.Sprintf("state-%d-%s", s.point, s.cut))
	if err := os.Mkdir(dir, 0o755); err != nil {
		r.t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	for _, tag := range e2etest.ClusterTags {
		nodeDir, ops := filepath.Join(dir, tag), r.prefix(tag, at.Seq)
		if s.cut == cutCluster || tag == at.Mount {
			rep, err := lossyfs.CrashState(nodeDir, ops, lossyfs.Clean)
			if err != nil {
				r.t.Fatalf("%v, node %s: %v", s, tag, err)
			}
			for _, e := range rep.Errors {
				r.t.Errorf("%v, node %s: the cut could not take back %s", s, tag, e)
			}
			o.dropped.Merge(tag+":", rep)
		} else if err := lossyfs.Replay(nodeDir, ops); err != nil {
			r.t.Fatalf("%v, node %s: %v", s, tag, err)
		}
		if err := os.Remove(r.links[tag]); err != nil {
			r.t.Fatal(err)
		}
		if err := os.Symlink(nodeDir, r.links[tag]); err != nil {
			r.t.Fatal(err)
		}
	}
	serving := r.restart(&o)
	defer func() {
		for _, tag := range serving {
			r.c.Node(tag).Kill9()
		}
	}()
	if len(serving) < 2 {
		o.problems = append(o.problems, fmt.Sprintf("only %v serve: without a quorum nothing promised can be read back", serving))
		return o
	}
	promised := r.led.Until(at.Seq)
	r.checkMaxima(&o, promised)
	after := newLedger()
	deadline := time.Now().Add(afterRestartFor)
	for i := 0; after.Acked() < afterRestartAcks && time.Now().Before(deadline); i++ {
		call(after, r.cl, i, func() int64 { return afterRestart })
	}
	if n := after.Acked(); n < afterRestartAcks {
		o.problems = append(o.problems, fmt.Sprintf("%d answers within %v of the restart, want %d", n, afterRestartFor, afterRestartAcks))
	}
	for _, rp := range promised.Repeats(after) {
		o.problems = append(o.problems, "handed out twice across the cut: "+rp)
	}
	for _, p := range r.c.Nodes {
		if out := p.Logs.String(); strings.Contains(out[max(0, strings.LastIndex(out, "----- start #")):], etagOlderWarning) {
			o.problems = append(o.problems, fmt.Sprintf("node %s: its etag file came back older than the watermark it had made durable and recorded in the cluster (%q)", p.Tag, etagOlderWarning))
		}
	}
	return o
}

// restart starts every node on its data dir and returns those that serve; a node that does
// not must have exited, not cleanly, naming its data dir.
func (r *recorded) restart(o *outcome) []string {
	r.t.Helper()
	for _, p := range r.c.Nodes {
		p.Restart()
	}
	var serving []string
	for _, p := range r.c.Nodes {
		_, done := p.Current()
		err := e2etest.PollServing(r.t, p.GRPCAddr, e2etest.ServeTimeout, done)
		if err == nil {
			serving = append(serving, p.Tag)
			continue
		}
		out := p.Logs.String()
		out = out[max(0, strings.LastIndex(out, "----- start #")):]
		st, werr := p.WaitExit(refusalExit)
		switch {
		case werr != nil:
			p.Kill9()
			o.problems = append(o.problems, fmt.Sprintf("node %s neither serves nor exits: %v\n%s", p.Tag, err, out))
		case st.ExitCode() == 0:
			o.problems = append(o.problems, fmt.Sprintf("node %s exited cleanly instead of serving or refusing:\n%s", p.Tag, out))
		case !strings.Contains(out, p.DataDir):
			o.problems = append(o.problems, fmt.Sprintf("node %s refused to start without naming a file of its data dir %s:\n%s", p.Tag, p.DataDir, out))
		default:
			o.refused = append(o.refused, p.Tag)
		}
	}
	return serving
}

// checkMaxima reads the identity and HiLo maxima back through the client.
func (r *recorded) checkMaxima(o *outcome, promised *ledger.Ledger) {
	r.t.Helper()
	identity, hilo := promised.Maxima()
	var ids *idnodev1.ListIdentitiesResponse
	var tags *idnodev1.ListHiLoResponse
	e2etest.Eventually(r.t, 2*e2etest.LeaderTimeout, "ListIdentities and ListHiLo after the restart", func() error {
		ctx, cancel := context.WithTimeout(context.Background(), e2etest.RPCTimeout)
		defer cancel()
		var err error
		if ids, err = r.cl.ListIdentities(ctx, &idnodev1.ListIdentitiesRequest{}); err != nil {
			return err
		}
		tags, err = r.cl.ListHiLo(ctx, &idnodev1.ListHiLoRequest{})
		return err
	})
	if got := e2etest.IdentityMap(ids)[identityName]; got < identity {
		o.problems = append(o.problems, fmt.Sprintf("identity %s is %d after the restart, but %d was acknowledged before the cut", identityName, got, identity))
	}
	var got int64
	for _, tg := range tags.GetTags() {
		if tg.GetTag() == hiloTag {
			got = tg.GetMax()
		}
	}
	if got < hilo {
		o.problems = append(o.problems, fmt.Sprintf("HiLo %s reserves up to %d after the restart, but a range up to %d was acknowledged before the cut", hiloTag, got, hilo))
	}
}
