package durability

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/idnode/idnode/internal/publication"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
)

// startCheckWarning is what a node logs when it starts handing out server-side IDs without
// having read the cluster's record of its etag watermark.
const startCheckWarning = "server-side IDs start without the cluster's etag record"

// A node that read its etag record at start says nothing about it; one that could not, because
// no leader answered for StartWait, warns, and says why. A warning on every
// healthy start teaches an operator to ignore the one that matters.
func TestEtagStartCheckWarnsOnlyWithoutALeader(t *testing.T) {
	t.Parallel()
	// quiet fails when p warns within StartWait of serving (plus a margin): its start check
	// was armed before it served. The wait is the thing tested, a time without the warning.
	quiet := func(t *testing.T, p *e2etest.Proc) {
		t.Helper()
		deadline := time.Now().Add(publication.StartWait + 2*time.Second)
		for time.Now().Before(deadline) {
			if strings.Contains(p.Logs.String(), startCheckWarning) {
				break
			}
			time.Sleep(e2etest.PollInterval)
		}
		if strings.Contains(p.Logs.String(), startCheckWarning) {
			t.Errorf("node %s read its etag record at start, yet logged: %q", p.Tag, lineWith(p.Logs.String(), startCheckWarning))
		}
	}
	t.Run("single node", func(t *testing.T) {
		t.Parallel()
		p, ids := e2etest.StartSingle(t)
		p.Stop()
		p.Restart()
		p.WaitServing(e2etest.ServeTimeout)
		e2etest.Generate(t, ids, &idnodev1.GenerateRequest{Id: "users/"})
		quiet(t, p)
	})
	t.Run("cluster", func(t *testing.T) {
		t.Parallel()
		c := e2etest.StartCluster(t)
		for _, p := range c.Nodes {
			e2etest.Generate(t, c.Ids[p.Tag], &idnodev1.GenerateRequest{Id: "users/"})
		}
		for _, p := range c.Nodes {
			quiet(t, p)
		}
	})
	t.Run("no leader", func(t *testing.T) {
		t.Parallel()
		c := e2etest.StartCluster(t)
		for _, p := range c.Nodes {
			p.Stop()
		}
		a := c.Node("A")
		a.Restart() // alone: no leader can be elected, nobody reads its record
		e2etest.Eventually(t, publication.StartWait+e2etest.ServeTimeout, "the start-check warning", func() error {
			line := lineWith(a.Logs.String(), startCheckWarning)
			switch {
			case line == "":
				return errors.New("node A, alone of three, has not warned")
			case !strings.Contains(line, "last_error=") || strings.Contains(line, "last_error=<nil>"):
				return fmt.Errorf("the warning does not say why: %s", line)
			}
			return nil
		})
	})
}

// lineWith is the first line of out that contains s, or "".
func lineWith(out, s string) string {
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, s) {
			return line
		}
	}
	return ""
}
