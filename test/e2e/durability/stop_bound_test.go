package durability

import (
	"context"
	"math"
	"strings"
	"syscall"
	"testing"
	"time"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
)

// stopBoundLimit is what TestStopEndsWithinItsBound allows a SIGTERM: the node's 10 s bound and
// time to write its last lines and exit.
const stopBoundLimit = 15 * time.Second

// SIGTERM ends a node within a bound even while an apply does not return. The apply is made slow
// the way the claim-skip loop near the largest int64 once did, with ordinary calls (a claim, a seed
// next to MaxInt64, an identity). Where that apply still does not return, the node must say so (the
// watchdog and the stop line name it) and exit with status 4; where it does, the stop is an
// ordinary clean one. Either way it ends within the bound.
func TestStopEndsWithinItsBound(t *testing.T) {
	t.Parallel()
	a := e2etest.StartNode(t, e2etest.NodeOpts{Tag: "A"})
	a.WaitServing(e2etest.ServeTimeout)
	ids, _ := e2etest.Dial(t, a.GRPCAddr)
	if _, err := ids.Claim(e2etest.RPCCtx(t), &idnodev1.ClaimRequest{Ids: []string{"p/5"}, Owner: "x"}); err != nil {
		t.Fatalf("Claim p/5: %v", err)
	}
	if _, err := ids.SeedIdentity(e2etest.RPCCtx(t), &idnodev1.SeedIdentityRequest{Name: "p", Value: math.MaxInt64 - 1}); err != nil {
		t.Logf("SeedIdentity p near MaxInt64 refused (a bound on seeds): %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	_, genErr := ids.Generate(ctx, &idnodev1.GenerateRequest{Id: "p|"})
	cancel()
	t.Logf("Generate p|: %v", genErr)

	begin := time.Now()
	a.Signal(syscall.SIGTERM)
	st, err := a.WaitExit(stopBoundLimit)
	if err != nil {
		t.Fatalf("SIGTERM: %v", err)
	}
	took := time.Since(begin)
	logs := a.Logs.String()
	switch st.ExitCode() {
	case 0:
		t.Logf("clean stop in %v: the apply returned", took)
	case exitStuckStatus:
		if !strings.Contains(logs, "an apply is slow") || !strings.Contains(logs, "the stop did not finish in time") {
			t.Errorf("exit %d after %v without the log naming the stuck apply", exitStuckStatus, took)
		}
		t.Logf("stop bounded: exit %d after %v", exitStuckStatus, took)
	default:
		t.Errorf("SIGTERM: exited with %v after %v; want 0 or %d", st, took, exitStuckStatus)
	}
}

// exitStuckStatus is cmd/idnode's exitStuck.
const exitStuckStatus = 4
