package ops

import (
	"crypto/tls"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/idnode/idnode/internal/tlsconfig"
	"github.com/idnode/idnode/test/e2e/e2etest"
)

// TestIdctlCommands runs every idctl command against a three-node loopback cluster. --addr
// starts with a dead address, so every call also proves the move to the next node.
// clockColumn is idctl status's CLOCK: an offset from the leader's clock to the millisecond,
// or "-" before the node measured one. On one machine every node shares the clock, so the
// offset is within a second.
var clockColumn = regexp.MustCompile(`^(-|[+-]0\.\d{3}s)$`)

func TestIdctlCommands(t *testing.T) {
	t.Parallel()
	c := e2etest.StartCluster(t)
	dead := e2etest.FreeAddr(t) // nothing listens here
	addr := []string{"IDNODE_ADDR=" + dead + "," + e2etest.AddrsOf(c.Nodes...)}

	t.Run("status", func(t *testing.T) {
		// Once the nodes agree on a leader: an election on a busy machine leaves a candidate.
		st := e2etest.IdctlSettled(t, addr)
		if len(st.Nodes) != 3 || st.Leader == "" {
			t.Fatalf("status: %+v", st)
		}
		leaders := 0
		for _, n := range st.Nodes {
			if n.Role == "leader" {
				leaders++
			}
			if !n.Voter || !n.Reachable || !n.Answered || n.Term == 0 || n.CommitIndex == 0 {
				t.Errorf("status of node %s: %+v", n.Tag, n)
			}
		}
		if leaders != 1 {
			t.Errorf("%d leaders in %+v", leaders, st)
		}
		table := e2etest.MustIdctl(t, addr, "status")
		// The members' table comes first; each node's headroom follows it after a blank line.
		members, headroom, _ := strings.Cut(table, "\n\n")
		lines := strings.Split(strings.TrimSpace(members), "\n")
		for _, tag := range e2etest.ClusterTags {
			if !strings.Contains(headroom, "headroom of node "+tag+":") {
				t.Errorf("idctl status has no headroom of node %s:\n%s", tag, table)
			}
		}
		// A notice may follow the rows: right after the start, nodes that have not recorded
		// their builds yet. A fresh cluster's nodes never run older builds.
		if strings.Contains(members, "older builds") {
			t.Errorf("idctl status on a fresh cluster names older builds:\n%s", table)
		}
		if len(lines) < 4 || !regexp.MustCompile(`^TAG\s+ID\s+GRPC\s+RAFT\s+ROLE\s+VOTER\s+TERM\s+COMMIT\s+APPLIED\s+REACHABLE\s+CLOCK\s+VERSION$`).MatchString(lines[0]) {
			t.Fatalf("status table:\n%s", table)
		}
		for i, tag := range e2etest.ClusterTags {
			// The version ("v0.0.0-e2e (commit …, go…)") has spaces: it is the rest of the row. The
			// clock offset is "-" until the node's first measurement, 10 s after its start.
			if f := strings.Fields(lines[i+1]); len(f) < 12 || f[0] != tag || !strings.HasPrefix(f[1], tag+"-") || f[9] != "yes" ||
				!clockColumn.MatchString(f[10]) || f[11] != e2etest.E2EVersion {
				t.Errorf("status row %q", lines[i+1])
			}
		}
	})

	t.Run("db", func(t *testing.T) {
		if got := e2etest.MustIdctl(t, addr, "db", "create", "billing", "--max-identities", "5"); got != "created database billing\n" {
			t.Errorf("db create = %q", got)
		}
		// Identities are asked again after a refusal for want of a leader, with the same
		// request id, so that a try the cluster acted on answers the same numbers.
		if got := e2etest.MustIdctlRetrying(t, append(addr, "IDNODE_DB=billing"), "next", "invoices|", "-n", "2", "--request-id", "billing-1"); got != "invoices/1\ninvoices/2\n" {
			t.Errorf("next in billing = %q", got)
		}
		if got := e2etest.MustIdctlRetrying(t, addr, "--db", "billing", "next", "invoices|", "--request-id", "billing-2"); got != "invoices/3\n" {
			t.Errorf("next --db billing = %q", got)
		}
		if out := e2etest.MustIdctl(t, addr, "db", "list"); !regexp.MustCompile(`(?m)^billing\s+1\s+0\s+5\s+-\s+0\s+1000000\n(.*\n)?default\s`).MatchString(out) {
			t.Errorf("db list:\n%s", out)
		}
		e2etest.WantIdctlFailure(t, 1, addr, []string{"--db", "shop", "next", "invoices|"}, "no such database", `"shop"`)
		// billing may hold 5 identity counters: invoices and four more, then no sixth.
		for i := range 4 {
			e2etest.MustIdctlRetrying(t, addr, "--db", "billing", "next", fmt.Sprintf("c%d|", i), "--request-id", fmt.Sprintf("billing-c%d", i))
		}
		e2etest.WantIdctlFailure(t, 1, addr, []string{"--db", "billing", "next", "c9|"}, "RESOURCE_EXHAUSTED", "5 identity counters")
		// A backup of billing alone, restored into this cluster: it raises nothing (the
		// counters are there already) and retires no tag (it holds none).
		file := filepath.Join(t.TempDir(), "billing.backup")
		e2etest.MustIdctl(t, addr, "--db", "billing", "backup", file)
		// --ahead 0: no margin, so nothing is raised above the counters already there.
		var restored map[string]any // protojson: int64 as strings, the margin an object
		out := e2etest.MustIdctl(t, addr, "--json", "restore", "--ahead", "0", file)
		if err := json.Unmarshal([]byte(out), &restored); err != nil || restored["identities"] != "5" || restored["tags"] != "0" || restored["identities_raised"] != "0" {
			t.Errorf("restore of billing's backup (%v):\n%s", err, out)
		}
	})

	t.Run("next", func(t *testing.T) {
		if got := e2etest.MustIdctlRetrying(t, addr, "next", "orders|", "-n", "5", "--request-id", "orders-5"); got != "orders/1\norders/2\norders/3\norders/4\norders/5\n" {
			t.Errorf("next 'orders|' -n 5 = %q", got)
		}
		// Flags may come first, and --addr may be given as a flag too.
		if got := e2etest.MustIdctl(t, nil, "--addr", c.Node("B").GRPCAddr, "next", "users/"); got != "users/0000000000000000001-B\n" {
			t.Errorf("next users/ via B = %q", got)
		}
		got := strings.TrimSpace(e2etest.MustIdctl(t, addr, "next", "", "--guid-v4"))
		if u, err := uuid.Parse(got); err != nil || u.Version() != 4 {
			t.Errorf("next '' --guid-v4 = %q (%v)", got, err)
		}
		if got := e2etest.MustIdctl(t, addr, "next", "users/ayende"); got != "users/ayende\n" {
			t.Errorf("next users/ayende = %q", got)
		}
		e2etest.WantIdctlFailure(t, 1, addr, []string{"next", `a\b`}, "INVALID_ARGUMENT", "backslash")
		e2etest.WantIdctlFailure(t, 2, addr, []string{"next", "orders|", "-n", "0"}, "-n must be at least 1")
	})

	t.Run("seed and identities", func(t *testing.T) {
		// A seed sets a value, so a retry after a refusal for want of a quorum (an election
		// on a busy machine) is safe.
		if got := e2etest.MustIdctlRetrying(t, addr, "seed", "invoices", "654"); got != "invoices = 654 (next identity 655)\n" {
			t.Errorf("seed = %q", got)
		}
		if got := e2etest.MustIdctlRetrying(t, addr, "seed", "invoices", "10", "--force"); !strings.HasPrefix(got, "invoices = 10 ") {
			t.Errorf("seed --force = %q", got)
		}
		e2etest.WantIdctlFailure(t, 2, addr, []string{"seed", "invoices", "many"}, "not a whole number")
		var ids []struct {
			Name  string `json:"name"`
			Value int64  `json:"value"`
		}
		out := e2etest.MustIdctl(t, addr, "identities", "--prefix", "ORD", "--json")
		if err := json.Unmarshal([]byte(out), &ids); err != nil || len(ids) != 1 || ids[0].Name != "orders" || ids[0].Value != 5 {
			t.Errorf("identities --prefix ORD --json = %s (%v)", out, err)
		}
		// Pages of one name each: idctl follows the page tokens.
		table := e2etest.MustIdctl(t, addr, "identities", "--page-size", "1")
		if !regexp.MustCompile(`(?s)^NAME\s+VALUE\ninvoices\s+10\norders\s+5\n$`).MatchString(table) {
			t.Errorf("identities:\n%s", table)
		}
	})

	t.Run("hilo", func(t *testing.T) {
		var r struct {
			Prefix    string `json:"prefix"`
			Low       string `json:"low"` // protojson writes int64 as a string
			High      string `json:"high"`
			ServerTag string `json:"server_tag"`
			GrantID   string `json:"grant_id"`
		}
		// Through one node, each call with a request id and asked again after a refusal for
		// want of a leader, as a script would: a node remembers its grants and returns by
		// request id, so a retry gets the first answer, which the second call checks.
		a := []string{"IDNODE_ADDR=" + c.Node("A").GRPCAddr}
		next := []string{"hilo", "next", "carts", "--json", "--request-id", "ops-carts-1"}
		out := e2etest.MustIdctlRetrying(t, a, next...)
		if err := json.Unmarshal([]byte(out), &r); err != nil || r.Prefix != "carts/" || r.Low != "1" || r.High != "32" || r.ServerTag == "" || r.GrantID == "" {
			t.Fatalf("hilo next carts --json = %s (%v)", out, err)
		}
		if again := e2etest.MustIdctlRetrying(t, a, next...); again != out {
			t.Errorf("hilo next carts again with its request id = %s; want the first answer %s", again, out)
		}
		if got := e2etest.MustIdctlRetrying(t, a, "hilo", "return", "carts", "32", "7", r.GrantID, "--request-id", "ops-carts-return"); got != "returned carts (7, 32]\n" {
			t.Errorf("hilo return carts 32 7 %s = %q", r.GrantID, got)
		}
		if got := e2etest.MustIdctlRetrying(t, a, "hilo", "next", "carts", "--request-id", "ops-carts-2"); !strings.HasPrefix(got, "carts/8-") {
			t.Errorf("after returning 8..32, hilo next carts = %q", got)
		}
	})

	t.Run("leader transfer", func(t *testing.T) {
		leader := c.Leader()
		to := c.Others(leader)[0]
		before := highestTerm(e2etest.IdctlStatus(t, addr, "--consistent"))
		if got := e2etest.MustIdctl(t, addr, "leader", "transfer", to); got != "leader: "+to+"\n" {
			t.Fatalf("leader transfer %s = %q", to, got)
		}
		// Right after a transfer a busy machine may lose the leader: the read is asked again,
		// and a leader other than to is right if it won an election after the transfer's (the
		// transfer's is term before+1).
		st := e2etest.IdctlStatus(t, addr, "--consistent")
		switch after := highestTerm(st); {
		case st.Leader == to:
		case after >= before+2:
			t.Logf("after the transfer to %s status names leader %s in term %d: elected after the transfer's term %d", to, st.Leader, after, before+1)
		default:
			t.Errorf("after the transfer status names leader %s in term %d, want %s (term %d before the transfer)", st.Leader, after, to, before)
		}
		e2etest.WantIdctlFailure(t, 1, addr, []string{"leader", "transfer", "Q"}, "NOT_FOUND")
	})

	t.Run("node add and remove", func(t *testing.T) {
		// A non-voter that never starts: the quorum of A, B and C is not affected.
		raftAddr, grpcAddr := e2etest.FreeAddr(t), e2etest.FreeAddr(t)
		out := e2etest.MustIdctl(t, addr, "node", "add", "-", "--raft-addr", raftAddr, "--grpc-addr", grpcAddr, "--non-voter")
		if out != "added node D (raft "+raftAddr+", grpc "+grpcAddr+", voter no)\n" {
			t.Fatalf("node add - = %q", out)
		}
		st := e2etest.IdctlStatus(t, addr)
		if len(st.Nodes) != 4 || st.Nodes[3].Tag != "D" || st.Nodes[3].Voter || st.Nodes[3].Reachable {
			t.Fatalf("status after node add: %+v", st)
		}
		if got := e2etest.MustIdctl(t, addr, "node", "remove", "D"); got != "removed node D; its tag is retired for ever\n" {
			t.Errorf("node remove D = %q", got)
		}
		if st := e2etest.IdctlStatus(t, addr); len(st.Nodes) != 3 {
			t.Errorf("status after node remove: %+v", st)
		}
		e2etest.WantIdctlRefusal(t, 1, addr, []string{"node", "add", "D", "--raft-addr", raftAddr, "--grpc-addr", grpcAddr}, "ALREADY_EXISTS", "retired")
		e2etest.WantIdctlFailure(t, 2, addr, []string{"node", "add", "E"}, "--raft-addr")
	})

	t.Run("backup and restore", func(t *testing.T) {
		dir := t.TempDir()
		file := filepath.Join(dir, "cluster.backup")
		out := e2etest.MustIdctlRetrying(t, addr, "backup", file)
		if !regexp.MustCompile(`^backup of raft index \d+ from leader [A-C]: \d+ bytes written to `).MatchString(out) {
			t.Errorf("backup = %q", out)
		}
		data, err := os.ReadFile(file)
		if err != nil || !strings.HasPrefix(string(data), "idnode-fsm-snapshot-v1\n") {
			t.Fatalf("backup file: %v, %.40q", err, data)
		}
		if left, _ := filepath.Glob(filepath.Join(dir, ".*tmp*")); len(left) > 0 {
			t.Errorf("backup left temp files %v", left)
		}
		// This cluster's own tags are in the backup: restoring it here is refused, and says why
		// (after any refusal for want of a leader, which the leader's answer follows).
		e2etest.WantIdctlRefusal(t, 1, addr, []string{"restore", file}, "FAILED_PRECONDITION", "A, B, C")
		e2etest.WantIdctlFailure(t, 1, addr, []string{"restore", filepath.Join(dir, "missing")}, "backup file")
		garbage := filepath.Join(dir, "garbage")
		if err := os.WriteFile(garbage, []byte("not a backup"), 0o600); err != nil {
			t.Fatal(err)
		}
		e2etest.WantIdctlFailure(t, 1, addr, []string{"restore", garbage}, "INVALID_ARGUMENT", "not an idnode backup")
	})

	t.Run("errors and usage", func(t *testing.T) {
		e2etest.WantIdctlFailure(t, 1, []string{"IDNODE_ADDR=" + dead}, []string{"status"}, "UNAVAILABLE", dead)
		e2etest.WantIdctlFailure(t, 2, addr, []string{"frobnicate"}, "unknown command")
		e2etest.WantIdctlFailure(t, 2, addr, []string{"hilo", "return", "carts", "x", "1", "g"}, "whole numbers")
		e2etest.WantIdctlFailure(t, 2, addr, []string{"status", "--bogus"}, "flag provided but not defined")
		if r := e2etest.Idctl(t, nil); r.Code != 2 || !strings.Contains(r.Stdout, "Usage: idctl") {
			t.Errorf("idctl alone: %v", r)
		}
		if r := e2etest.Idctl(t, nil, "next", "-h"); r.Code != 0 || !strings.Contains(r.Stdout, "-request-id") {
			t.Errorf("idctl next -h: %v", r)
		}
	})
}

// TestIdctlCerts makes a CA and node certificates the way docs/tls.md says.
func TestIdctlCerts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if out := e2etest.IdctlIn(t, dir, nil, "certs", "ca"); out.Code != 0 || !strings.Contains(out.Stdout, "certs/ca.crt") {
		t.Fatalf("certs ca: %v", out)
	}
	if out := e2etest.IdctlIn(t, dir, nil, "certs", "node", "A", "--host", "raft-a,idnode-a"); out.Code != 0 ||
		!strings.Contains(out.Stdout, "127.0.0.1, ::1, localhost, raft-a, idnode-a") {
		t.Fatalf("certs node A: %v", out)
	}
	for _, f := range []string{"ca.crt", "ca.key", "A.crt", "A.key"} {
		if _, err := os.Stat(filepath.Join(dir, "certs", f)); err != nil {
			t.Error(err)
		}
	}
	// The node certificate carries the node mark: without it no node takes it.
	if pair, err := tls.LoadX509KeyPair(filepath.Join(dir, "certs", "A.crt"), filepath.Join(dir, "certs", "A.key")); err != nil || !tlsconfig.IsNode(pair.Leaf) {
		t.Errorf("certs node A: not a node certificate (OU=%s and serverAuth): %v", tlsconfig.NodeUnit, err)
	}
	if fi, err := os.Stat(filepath.Join(dir, "certs", "A.key")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("A.key mode: %v, %v", fi, err)
	}
	if out := e2etest.IdctlIn(t, dir, nil, "certs", "ca"); out.Code != 1 || !strings.Contains(out.Stderr, "--force") {
		t.Errorf("certs ca over an existing CA: %v", out)
	}
	if out := e2etest.IdctlIn(t, t.TempDir(), nil, "certs", "node", "B"); out.Code != 1 || !strings.Contains(out.Stderr, "idctl certs ca") {
		t.Errorf("certs node without a CA: %v", out)
	}
}

// highestTerm is the highest Raft term the nodes that answered idctl status report.
func highestTerm(st e2etest.StatusJSON) uint64 {
	var term uint64
	for _, n := range st.Nodes {
		if n.Answered {
			term = max(term, n.Term)
		}
	}
	return term
}
