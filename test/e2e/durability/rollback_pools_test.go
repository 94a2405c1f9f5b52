package durability

import (
	"path/filepath"
	"strings"
	"testing"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
)

// An older copy of hilo-pools costs a gap, never a repeat, after a clean
// stop and after kill -9. On main the node granted 33-64 twice.
func TestOlderHiLoPoolsFileIsAGap(t *testing.T) {
	t.Parallel()
	for _, mode := range stopModes {
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			p, _ := e2etest.StartSingle(t)
			ids, _ := e2etest.Dial(t, p.GRPCAddr)
			log := e2etest.NewGrantedRanges()
			grant := func() {
				t.Helper()
				r, err := e2etest.NextRange(e2etest.RPCCtx(t), ids, "orders")
				if err != nil {
					t.Fatalf("NextHiLo(orders): %v", err)
				}
				log.Add("orders", r)
			}
			grant()
			p.Stop()
			older := filepath.Join(t.TempDir(), "hilo-pools")
			copyFile(t, filepath.Join(p.DataDir, "hilo-pools"), older)
			p.Restart()
			p.WaitServing(e2etest.ServeTimeout)
			for range 3 {
				grant()
			}
			mode.stop(p)
			copyFile(t, older, filepath.Join(p.DataDir, "hilo-pools"))
			p.Restart()
			p.WaitServing(e2etest.ServeTimeout)
			for range 3 {
				grant()
			}
			log.CheckDisjoint(t)
		})
	}
}

// A hilo-pools file left in a data dir whose other pieces were deleted (what rm -rf node.json
// manifest.json raft etag, or a partial restore, leaves) is refused by name: on main the new
// cluster granted from the old pool and then reserved the same numbers from Max 0.
func TestLeftoverHiLoPoolsFileIsRefused(t *testing.T) {
	t.Parallel()
	p, _ := e2etest.StartSingle(t)
	ids, _ := e2etest.Dial(t, p.GRPCAddr)
	log := e2etest.NewGrantedRanges()
	for range 2 {
		r, err := e2etest.NextRange(e2etest.RPCCtx(t), ids, "orders")
		if err != nil {
			t.Fatal(err)
		}
		log.Add("orders", r)
	}
	p.Stop()
	for _, piece := range []string{"node.json", "manifest.json", "raft", "etag"} {
		mustRemove(t, filepath.Join(p.DataDir, piece))
	}
	p.Restart()
	if st, err := p.WaitExit(e2etest.ServeTimeout); err != nil || st.ExitCode() == 0 {
		// The node started as a new cluster on the leftover pool: show what it grants.
		p.WaitServing(e2etest.ServeTimeout)
		for range 40 {
			if r, err := e2etest.NextRange(e2etest.RPCCtx(t), ids, "orders"); err == nil {
				log.Add("orders", r)
			}
		}
		log.CheckDisjoint(t)
		t.Fatalf("the node started on a data dir holding only another identity's hilo-pools (exit %v, %v)", st, err)
	}
	out := p.Logs.String()
	if out = out[strings.LastIndex(out, "----- start #"):]; !strings.Contains(out, "hilo-pools") || !strings.Contains(out, "node.json") {
		t.Fatalf("the refusal does not name hilo-pools and the missing node.json:\n%s", out)
	}
}

// A clean stop with a quorum seals the pools file in the cluster: the next start keeps the
// pools whole, a returned tail included, because the file is provably the one the node left.
func TestCleanStopKeepsPoolsWhole(t *testing.T) {
	t.Parallel()
	p, _ := e2etest.StartSingle(t)
	ids, _ := e2etest.Dial(t, p.GRPCAddr)
	r, err := e2etest.NextRange(e2etest.RPCCtx(t), ids, "orders")
	if err != nil {
		t.Fatal(err)
	}
	keep := r.GetLow() + 4
	if _, err := ids.ReturnHiLo(e2etest.RPCCtx(t), &idnodev1.ReturnHiLoRequest{Tag: "orders", End: r.GetHigh(), Last: keep, GrantId: r.GetGrantId()}); err != nil {
		t.Fatalf("ReturnHiLo: %v", err)
	}
	p.Stop()
	p.Restart()
	p.WaitServing(e2etest.ServeTimeout)
	if next, err := e2etest.NextRange(e2etest.RPCCtx(t), ids, "orders"); err != nil || next.GetLow() != keep+1 {
		t.Fatalf("first range after a clean restart = %v, %v; want the returned tail, from %d", next, err, keep+1)
	}
}
