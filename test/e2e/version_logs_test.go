package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/idnode/idnode/internal/jsonlog"
	"github.com/idnode/idnode/internal/loopback"
)

// idnode --version, idctl version, Status and /metrics say the same version: the one the
// binaries were built with.
func TestEveryVersionSurfaceAgrees(t *testing.T) {
	t.Parallel()
	run := func(bin string, args ...string) string {
		ctx, cancel := context.WithTimeout(context.Background(), rpcTimeout)
		defer cancel()
		out, err := exec.CommandContext(ctx, bin, args...).Output()
		if err != nil {
			t.Fatalf("%s %s: %v", bin, strings.Join(args, " "), err)
		}
		return strings.TrimSpace(string(out))
	}
	idnodeVersion := strings.TrimPrefix(run(buildIdnode(t), "--version"), "idnode ")
	if !strings.HasPrefix(idnodeVersion, e2eVersion+" ") {
		t.Fatalf("idnode --version = %q, want %s (…)", idnodeVersion, e2eVersion)
	}
	if v := strings.TrimPrefix(run(buildIdnode(t), "version"), "idnode "); v != idnodeVersion {
		t.Errorf("idnode version = %q, --version %q", v, idnodeVersion)
	}
	if v := strings.TrimPrefix(run(buildIdctl(t), "version"), "idctl "); v != idnodeVersion {
		t.Errorf("idctl version = %q, idnode %q", v, idnodeVersion)
	}

	metrics := fmt.Sprintf("127.0.0.1:%d", loopback.FreePort(t))
	c := startCluster(t)
	p := startNode(t, nodeOpts{Tag: "M", Extra: []string{"--metrics-addr", metrics}})
	p.waitServing(serveTimeout)
	st := idctlStatus(t, []string{"IDNODE_ADDR=" + addrsOf(c.nodes...)})
	for _, n := range st.Nodes {
		if n.Version != idnodeVersion {
			t.Errorf("idctl status: node %s version %q, want %q", n.Tag, n.Version, idnodeVersion)
		}
	}
	want := fmt.Sprintf(`idnode_build_info{commit="",goversion=%q,version=%q} 1`, strings.TrimSuffix(idnodeVersion[strings.LastIndex(idnodeVersion, " ")+1:], ")"), idnodeVersion)
	if body := scrape(t, metrics); !strings.Contains(body, want) {
		t.Errorf("/metrics lacks %s:\n%s", want, grep(body, "idnode_build_info"))
	}
}

// Every line a three-node cluster logs in JSON through start-up, a failover and a restart is
// one JSON object a log pipeline takes: no key twice, no {} for raft's values. A node that
// stops says so last, with what it flushed.
func TestJSONLogsAreCleanThroughAFailover(t *testing.T) {
	t.Parallel()
	c := startCluster(t, "--log-format", "json")
	old := c.leader()
	c.node(old).stop()
	next := c.leader(c.others(old)...)
	if next == old {
		t.Fatalf("leader still %s after it stopped", old)
	}
	c.node(old).restart()
	c.waitServing(old)
	for _, p := range c.nodes {
		p.stop()
	}
	for _, p := range c.nodes {
		var lines []string // the node's own output, without the harness's start/exit markers
		for _, line := range strings.Split(strings.TrimSpace(p.logs.String()), "\n") {
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
