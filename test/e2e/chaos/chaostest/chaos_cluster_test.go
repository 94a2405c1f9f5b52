package chaostest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idnode/idnode/test/e2e/e2etest"
)

// A service the override adds must run as deploy/docker-compose.yml's do: the shared
// environment it repeats is the file's, key for key.
func TestSharedEnvMatchesDeploy(t *testing.T) {
	root, err := e2etest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	file, err := os.ReadFile(filepath.Join(root, "deploy", "docker-compose.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var keys int
	for _, line := range strings.Split(string(file), "\n") {
		if k, _, ok := strings.Cut(strings.TrimSpace(line), ":"); ok && strings.HasPrefix(k, "IDNODE_") && k != "IDNODE_PEERS" {
			keys++
		}
	}
	if keys != len(chaosSharedEnv) {
		t.Errorf("deploy/docker-compose.yml sets %d IDNODE_ variables besides IDNODE_PEERS, chaosSharedEnv %d", keys, len(chaosSharedEnv))
	}
	for _, kv := range chaosSharedEnv {
		if !strings.Contains(string(file), "    "+kv[0]+": "+kv[1]+"\n") {
			t.Errorf("deploy/docker-compose.yml does not set %s: %s", kv[0], kv[1])
		}
	}
}

// The three deploy nodes run as the file has them; a cluster with regions gives each its own.
func TestChaosClusterOverride(t *testing.T) {
	deploy := DeployCluster.override()
	if strings.Contains(deploy, "command") || strings.Contains(deploy, "IDNODE_PEERS") || strings.Contains(deploy, "volumes") {
		t.Errorf("the deploy cluster's override changes more than the restart policy, the health check, the replica checks' interval and the subnet:\n%s", deploy)
	}
	if n := strings.Count(deploy, "    healthcheck: {disable: true}\n"); n != chaosDeployNodes {
		t.Errorf("the deploy cluster's override turns the health check off on %d nodes, want %d:\n%s", n, chaosDeployNodes, deploy)
	}
	if n := strings.Count(deploy, `IDNODE_REPLICA_CHECK_INTERVAL: "5s"`); n != chaosDeployNodes {
		t.Errorf("the deploy cluster's override sets the replica checks' interval on %d nodes, want %d:\n%s", n, chaosDeployNodes, deploy)
	}
	five, err := NewChaosCluster("a", "a", "a", "b", "b", "c")
	if err != nil {
		t.Fatal(err)
	}
	got := five.override()
	for _, want := range []string{
		`command: ["--tag", "E", "--grpc-advertise", "raft-e:7070", "--region", "c", "--preferred-region", "a"]`,
		`IDNODE_PEERS: "A=raft-a:7000,B=raft-b:7000,C=raft-c:7000,D=raft-d:7000,E=raft-e:7000"`,
		`ports: ["127.0.0.1:7075:7070", "127.0.0.1:7085:7080", "127.0.0.1:9105:9100"]`,
		"  idnode-e-data: {}",
		"  idnode-e:\n    restart: \"no\"\n    healthcheck: {disable: true}\n    environment:\n      IDNODE_REPLICA_CHECK_INTERVAL: \"5s\"\n      IDNODE_PEERS:",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the five-node override lacks %s:\n%s", want, got)
		}
	}
	if tags := five.InRegion("b"); strings.Join(tags, ",") != "C,D" {
		t.Errorf("InRegion(b) = %v, want C, D", tags)
	}
	for _, bad := range [][]string{
		{"", "a", "b", "c"},                          // regions named, none preferred
		{"x", "a", "b", "c"},                         // preferred region of no node
		{"a", "a", "", "c"},                          // a node without a region
		{"", "", ""},                                 // two nodes
		{"a", "a", "b", "c: d"},                      // a region that would break the compose file
		{"", "", "", "", "", "", "", "", "", "", ""}, // ten nodes: ports would collide
	} {
		if _, err := NewChaosCluster(bad[0], bad[1:]...); err == nil {
			t.Errorf("NewChaosCluster(%q, %q) accepted", bad[0], bad[1:])
		}
	}
}
