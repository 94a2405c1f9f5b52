package ops

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/idnode/idnode/test/e2e/e2etest"
	"github.com/idnode/idnode/test/helpers/jsonlog"
	"github.com/idnode/idnode/test/helpers/loopback"
)

// idnode --version, idctl version, Status and /metrics say the same version: the one the
// binaries were built with.
func TestEveryVersionSurfaceAgrees(t *testing.T) {
	t.Parallel()
	run := func(bin string, args ...string) string {
		ctx, cancel := context.WithTimeout(context.Background(), e2etest.RPCTimeout)
		defer cancel()
		out, err := exec.CommandContext(ctx, bin, args...).Output()
		if err != nil {
			t.Fatalf("%s %s: %v", bin, strings.Join(args, " "), err)
		}
		return strings.TrimSpace(string(out))
	}
	idnodeVersion := strings.TrimPrefix(run(e2etest.BuildIdnode(t), "--version"), "idnode ")
	if !strings.HasPrefix(idnodeVersion, e2etest.E2EVersion+" ") {
		t.Fatalf("idnode --version = %q, want %s (…)", idnodeVersion, e2etest.E2EVersion)
	}
	if v := strings.TrimPrefix(run(e2etest.BuildIdnode(t), "version"), "idnode "); v != idnodeVersion {
		t.Errorf("idnode version = %q, --version %q", v, idnodeVersion)
	}
	if v := strings.TrimPrefix(run(e2etest.BuildIdctl(t), "version"), "idctl "); v != idnodeVersion {
		t.Errorf("idctl version = %q, idnode %q", v, idnodeVersion)
	}

	metrics := fmt.Sprintf("127.0.0.1:%d", loopback.FreePort(t))
	c := e2etest.StartCluster(t)
	p := e2etest.StartNode(t, e2etest.NodeOpts{Tag: "M", Extra: []string{"--metrics-addr", metrics}})
	p.WaitServing(e2etest.ServeTimeout)
	st := e2etest.IdctlStatus(t, []string{"IDNODE_ADDR=" + e2etest.AddrsOf(c.Nodes...)})
	for _, n := range st.Nodes {
		if n.Version != idnodeVersion {
			t.Errorf("idctl status: node %s version %q, want %q", n.Tag, n.Version, idnodeVersion)
		}
	}
	// "v0.0.0-e2e (commit 1a2b3c4d5e6f, go1.26.0)", "+modified" after the commit when the
	// checkout had changes: the label holds the whole commit the short one begins, or nothing
	// where the build has no VCS information ("commit unknown").
	var short, goVersion string
	if _, err := fmt.Sscanf(idnodeVersion[len(e2etest.E2EVersion):], " (commit %s %s", &short, &goVersion); err != nil {
		t.Fatalf("idnode --version = %q: %v", idnodeVersion, err)
	}
	commit := regexp.QuoteMeta(strings.TrimSuffix(strings.TrimSuffix(short, ","), "+modified")) + "[0-9a-f]*"
	if short == "unknown," {
		commit = ""
	}
	want := regexp.MustCompile(fmt.Sprintf(`(?m)^idnode_build_info\{commit="%s",goversion="%s",version="%s"\} 1$`,
		commit, regexp.QuoteMeta(strings.TrimSuffix(goVersion, ")")), regexp.QuoteMeta(idnodeVersion)))
	if body := e2etest.Scrape(t, metrics); !want.MatchString(body) {
		t.Errorf("/metrics lacks a line matching %s:\n%s", want, grep(body, "idnode_build_info"))
	}
}

// Every line a three-node cluster logs in JSON through start-up, a failover and a restart is
// one JSON object a log pipeline takes: no key twice, no {} for raft's values. A node that
// stops says so last, with what it flushed.
func TestJSONLogsAreCleanThroughAFailover(t *testing.T) {
	t.Parallel()
	c := e2etest.StartCluster(t, "--log-format", "json")
	old := c.Leader()
	c.Node(old).Stop()
	next := c.Leader(c.Others(old)...)
	if next == old {
		t.Fatalf("leader still %s after it stopped", old)
	}
	c.Node(old).Restart()
	c.WaitServing(old)
	for _, p := range c.Nodes {
		p.Stop()
	}
	for _, p := range c.Nodes {
		var lines []string // the node's own output, without the harness's start/exit markers
		for _, line := range strings.Split(strings.TrimSpace(p.Logs.String()), "\n") {
			if !strings.HasPrefix(line, "----- ") {
				lines = append(lines, line)
			}
		}
		if err := jsonlog.CheckAll([]byte(strings.Join(lines, "\n"))); err != nil {
			t.Errorf("node %s: %v", p.Tag, err)
		}
		var last map[string]any
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
			t.Fatalf("node %s, last line: %v", p.Tag, err)
		}
		if last["msg"] != "stopped" || last["raft_closed"] != true || last["etag_closed"] != true || last["raft_last_index"] == nil {
			t.Errorf("node %s: last line %v; want msg stopped with raft_last_index, raft_closed and etag_closed true", p.Tag, last)
		}
	}
}
