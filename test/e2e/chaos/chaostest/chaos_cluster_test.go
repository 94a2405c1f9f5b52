package chaostest

import (
	"fmt"
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

// Two suites run at once in two chaos slots: the second slot's cluster publishes every port
// of deploy/docker-compose.yml and of the override a step higher, and its raft network has a
// subnet of its own, so that neither cluster meets the other's.
func TestAClusterInTheSecondSlotMeetsNoneOfTheFirst(t *testing.T) {
	root, err := e2etest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	deploy, err := os.ReadFile(filepath.Join(root, "deploy", "docker-compose.yml"))
	if err != nil {
		t.Fatal(err)
	}
	five, err := NewChaosCluster("a", "a", "a", "b", "b", "c")
	if err != nil {
		t.Fatal(err)
	}
	first, second := five.inSlot(0), five.inSlot(1)
	same, err := first.composeFile(string(deploy))
	if err != nil {
		t.Fatal(err)
	}
	if same != string(deploy) {
		t.Errorf("the first slot's compose file differs from deploy/docker-compose.yml:\n%s", same)
	}
	moved, err := second.composeFile(string(deploy))
	if err != nil {
		t.Fatal(err)
	}
	firstPorts := map[string]bool{}
	for _, text := range []string{same, first.override()} {
		for _, m := range e2etest.PublishedPort.FindAllStringSubmatch(text, -1) {
			firstPorts[m[1]] = true
		}
	}
	var secondPorts []string
	for _, text := range []string{moved, second.override()} {
		for _, m := range e2etest.PublishedPort.FindAllStringSubmatch(text, -1) {
			secondPorts = append(secondPorts, m[1])
		}
	}
	if len(secondPorts) != 3*len(five.nodes) || len(firstPorts) != 3*len(five.nodes) {
		t.Fatalf("the slots publish %d and %d ports, want 3 per node (%d)", len(firstPorts), len(secondPorts), 3*len(five.nodes))
	}
	for _, p := range secondPorts {
		if firstPorts[p] {
			t.Errorf("both slots publish port %s", p)
		}
	}
	for i, n := range second.nodes {
		want := fmt.Sprintf("\"127.0.0.1:%d:7070\"", n.port)
		if !strings.Contains(moved+second.override(), want) {
			t.Errorf("node %s dials %s, which the second slot's files do not publish (%s)", n.Tag, n.addr, want)
		}
		if n.addr == first.nodes[i].addr {
			t.Errorf("node %s dials %s in both slots", n.Tag, n.addr)
		}
	}
	if first.raftSubnet() == second.raftSubnet() || !strings.Contains(second.override(), "subnet: "+second.raftSubnet()) {
		t.Errorf("raft subnets %s and %s; the second slot's override:\n%s", first.raftSubnet(), second.raftSubnet(), second.override())
	}
	if _, err := second.composeFile("services: {}\n"); err == nil {
		t.Error("a compose file that publishes no port was taken for deploy/docker-compose.yml")
	}
}
