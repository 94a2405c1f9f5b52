package cluster

import (
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
)

// firstConnProxy forwards the first connection it accepts to target and refuses every later
// one, telling refused of each. A joining node dials its --join address anew for each step, so
// the proxy lets the join through and stops the promotion to voter and the clean-up.
type firstConnProxy struct {
	lis     net.Listener
	refused chan struct{}
	wg      sync.WaitGroup
}

func newFirstConnProxy(t *testing.T, target string) *firstConnProxy {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &firstConnProxy{lis: lis, refused: make(chan struct{}, 1)}
	p.wg.Go(func() {
		for n := 0; ; n++ {
			conn, err := lis.Accept()
			if err != nil {
				return
			}
			if n > 0 {
				_ = conn.Close()
				select {
				case p.refused <- struct{}{}:
				default:
				}
				continue
			}
			up, err := net.Dial("tcp", target)
			if err != nil {
				_ = conn.Close()
				continue
			}
			p.wg.Go(func() { _, _ = io.Copy(up, conn); _ = up.Close() })
			p.wg.Go(func() { _, _ = io.Copy(conn, up); _ = conn.Close() })
		}
	})
	t.Cleanup(func() { _ = lis.Close(); p.wg.Wait() })
	return p
}

// A node whose --join stopped after it became a non-voter (its promotion
// and the clean-up both failed, or it crashed in between), restarted with the same flags, ran
// as a non-voter for ever without a word. Now it warns at start, Status says so, and
// `idctl node promote` finishes the join.
func TestUnfinishedJoinSaysSoAndCanBeFinished(t *testing.T) {
	t.Parallel()
	a := e2etest.StartNode(t, e2etest.NodeOpts{Tag: "A"})
	a.WaitServing(e2etest.ServeTimeout)
	_, admin := e2etest.Dial(t, a.GRPCAddr)
	proxy := newFirstConnProxy(t, a.GRPCAddr)

	d := e2etest.StartNode(t, e2etest.NodeOpts{Tag: "D", Extra: []string{"--join", proxy.lis.Addr().String()}})
	_, exited := d.Current()
	select {
	case <-proxy.refused: // D asked to become a voter: it is a non-voter member now
	case <-exited:
		t.Fatalf("D exited before it asked to become a voter")
	}
	// D is killed once its log holds the configuration that made it a member: killed before,
	// it restarts knowing no configuration, so it cannot tell its join did not finish (a race
	// CI lost once). A's commit index now covers that entry; D's applied index, from A's
	// probe, shows when D holds it.
	joined, err := admin.Status(e2etest.RPCCtx(t), &idnodev1.StatusRequest{Consistent: true})
	if err != nil {
		t.Fatalf("Status: %v", err)
	}
	e2etest.Eventually(t, e2etest.ServeTimeout, "D holds the entry that made it a member", func() error {
		st, err := admin.Status(e2etest.RPCCtx(t), &idnodev1.StatusRequest{})
		if err != nil {
			return err
		}
		for _, n := range st.GetNodes() {
			if n.GetTag() == "D" && n.GetAppliedIndex() >= joined.GetCommitIndex() {
				return nil
			}
		}
		return fmt.Errorf("D has not applied index %d: %v", joined.GetCommitIndex(), st.GetNodes())
	})
	d.Kill9()
	d.Restart()
	d.WaitServing(e2etest.ServeTimeout)
	e2etest.Eventually(t, e2etest.ServeTimeout, "D warns that its join did not finish", func() error {
		if !strings.Contains(d.Logs.String(), "join did not finish") {
			return errors.New("no warning in D's log")
		}
		return nil
	})
	dNode := func() *idnodev1.NodeStatus {
		st, err := admin.Status(e2etest.RPCCtx(t), &idnodev1.StatusRequest{Consistent: true})
		if err != nil {
			t.Fatalf("Status: %v", err)
		}
		for _, n := range st.GetNodes() {
			if n.GetTag() == "D" {
				return n
			}
		}
		t.Fatalf("Status lists no D: %v", st.GetNodes())
		return nil
	}
	if n := dNode(); n.GetVoter() || !n.GetJoinUnfinished() {
		t.Fatalf("Status of D: voter %v, join_unfinished %v; want a non-voter whose join did not finish", n.GetVoter(), n.GetJoinUnfinished())
	}
	env := []string{"IDNODE_ADDR=" + a.GRPCAddr}
	if out := e2etest.Idctl(t, env, "status"); !strings.Contains(out.Stdout, "idctl node promote D") {
		t.Errorf("idctl status does not tell how to finish D's join:\n%s", out.Stdout)
	}
	if out := e2etest.MustIdctl(t, env, "node", "promote", "D"); !strings.Contains(out, "voter now") {
		t.Errorf("idctl node promote D: %q", out)
	}
	// D learns of its promotion from the leader's next append, and says so on the next probe.
	e2etest.Eventually(t, e2etest.ServeTimeout, "D is a voter whose join is finished", func() error {
		if n := dNode(); !n.GetVoter() || n.GetJoinUnfinished() {
			return fmt.Errorf("Status of D: voter %v, join_unfinished %v", n.GetVoter(), n.GetJoinUnfinished())
		}
		return nil
	})
}
