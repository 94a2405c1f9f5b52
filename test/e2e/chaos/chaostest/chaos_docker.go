package chaostest

// The chaos suite's side of Docker: build the image through the Makefile, bring the compose
// cluster of deploy/ up and down, and inject faults into its containers with the docker CLI
// (network disconnect/connect, kill, start, pause, unpause, restart). See chaos.go.

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/idnode/idnode/client"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
	"github.com/idnode/idnode/test/helpers/nodeenv"
)

const (
	// chaosImage is built by `make image IMAGE=idnode:chaos` and run by compose through
	// IDNODE_IMAGE, so a developer's idnode:dev is left alone.
	chaosImage = "idnode:chaos"
	// chaosAdminToken is the compose cluster's admin token: the suite's admin calls come from
	// the host (or a container), not from a node's own loopback.
	chaosAdminToken = "chaos-admin-token"

	chaosDockerInfoTimeout = 20 * time.Second // `docker info`
	chaosCmdTimeout        = 60 * time.Second // any other docker or compose command
	chaosBuildTimeout      = 5 * time.Minute  // make image (go build on a cold cache, docker build)
	chaosStopGrace         = 10               // seconds docker restart waits after SIGTERM (as compose's stop_grace_period)
	chaosLogTail           = "80"             // log lines per node shown when a schedule fails

	// chaosRaftSubnet is the raft network's subnet in the suite's compose override. Docker
	// lets `network connect --ip` put a container back at its old address only on a network
	// with a configured subnet; see chaosDocker.connect.
	chaosRaftSubnet = "10.231.77.0/24"
	// chaosOverride is that override, added to deploy/docker-compose.yml with a second -f. It
	// also turns the compose file's restart policy off: the suite kills and starts nodes
	// itself, and a node that refuses to start must stay exited (wipeAndRestart). No version
	// key, like the compose file: docker-compose v1 refuses files whose versions differ.
	chaosOverride = `services:
  idnode-a: {restart: "no"}
  idnode-b: {restart: "no"}
  idnode-c: {restart: "no"}
networks:
  raft:
    ipam:
      config:
        - subnet: ` + chaosRaftSubnet + `
`
	// chaosNewIPsEnv=1 makes every reconnect move the node to a new address instead
	// (chaosNewIPBase + 1, + 2, …): the daemon's open peer connections, to or from the old
	// address, then have to notice that it is gone.
	chaosNewIPsEnv = "IDNODE_CHAOS_NEW_IPS"
	chaosNewIPBase = "10.231.77.100"
)

// chaosNode is one compose service and how the suite reaches it.
type chaosNode struct {
	Tag     string // node tag (--tag)
	service string // compose service
	alias   string // its name on the raft network (raft-a …), kept when it is reconnected
	addr    string // its gRPC port, published on loopback
}

var ChaosNodes = []chaosNode{
	{"A", "idnode-a", "raft-a", "127.0.0.1:7071"},
	{"B", "idnode-b", "raft-b", "127.0.0.1:7072"},
	{"C", "idnode-c", "raft-c", "127.0.0.1:7073"},
}

func chaosNodeOf(tag string) chaosNode {
	for _, n := range ChaosNodes {
		if n.Tag == tag {
			return n
		}
	}
	panic("chaos: no node " + tag)
}

// chaosPrereq is what the suite needs from the machine. When something is missing it skips
// with the reason, except in CI (CI=true), where a machine without Docker is a broken CI
// machine and the suite fails with the same reason.
func chaosPrereq(t *testing.T, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if os.Getenv("CI") == "true" {
		t.Fatalf("chaos suite cannot run: %s (CI=true: the chaos suite is part of CI, so this is a failure)", msg)
	}
	t.Skipf("chaos suite skipped: %s", msg)
}

// chaosDocker drives one compose project.
type chaosDocker struct {
	root     string   // module root
	file     string   // deploy/docker-compose.yml
	override string   // chaosOverride, written to a temp file
	compose  []string // "docker compose" or "docker-compose"
	env      []string // environment of every command
	newIPs   bool     // $IDNODE_CHAOS_NEW_IPS=1
	moves    int      // addresses handed out for newIPs

	mu         sync.Mutex
	containers map[string]string // tag → container ID of the current cluster
	raftIPs    map[string]string // tag → address on the raft network before its last disconnect
	network    string            // <project>_raft
}

// chaosDockerFor checks the prerequisites (see chaosPrereq) and returns a driver.
func chaosDockerFor(t *testing.T) *chaosDocker {
	t.Helper()
	root, err := e2etest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range []string{"docker", "make"} {
		if _, err := exec.LookPath(tool); err != nil {
			chaosPrereq(t, "no %s on PATH", tool)
		}
	}
	d := &chaosDocker{
		root: root, file: filepath.Join(root, "deploy", "docker-compose.yml"),
		override:   filepath.Join(t.TempDir(), "docker-compose.chaos.yml"),
		env:        append(nodeenv.Clean(), "IDNODE_IMAGE="+chaosImage, "COMPOSE_PROJECT_NAME="+e2etest.ChaosProject, "IDNODE_ADMIN_TOKEN="+chaosAdminToken),
		newIPs:     os.Getenv(chaosNewIPsEnv) == "1",
		containers: map[string]string{},
		raftIPs:    map[string]string{},
		network:    e2etest.ChaosProject + "_raft",
	}
	e2etest.OwnProject(e2etest.ChaosProject)
	if err := os.WriteFile(d.override, []byte(chaosOverride), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := d.run(chaosDockerInfoTimeout, "docker", "info", "--format", "{{.ServerVersion}}"); err != nil {
		chaosPrereq(t, "no Docker engine answers (`docker info`: %v: %s)", err, oneLine(out))
	}
	// The same choice as the Makefile's COMPOSE: the plugin when there is one, else v1.
	if _, err := d.run(chaosCmdTimeout, "docker", "compose", "version"); err == nil {
		d.compose = []string{"docker", "compose"}
	} else if _, err := d.run(chaosCmdTimeout, "docker-compose", "version"); err == nil {
		d.compose = []string{"docker-compose"}
	} else {
		chaosPrereq(t, "Docker answers, but neither `docker compose` nor `docker-compose` works")
	}
	return d
}

// run runs a command in the module root with a time limit and returns its combined output.
func (d *chaosDocker) run(timeout time.Duration, name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = d.root
	cmd.Env = d.env
	cmd.WaitDelay = time.Second
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		err = fmt.Errorf("%s %s: no exit within %v: %w", name, strings.Join(args, " "), timeout, ctx.Err())
	} else if err != nil {
		err = fmt.Errorf("%s %s: %w", name, strings.Join(args, " "), err)
	}
	return string(out), err
}

// must runs a docker command (or compose, when name is "compose") and fails the test if it fails.
func (d *chaosDocker) must(t testing.TB, timeout time.Duration, name string, args ...string) string {
	t.Helper()
	if name == "compose" {
		name, args = d.composeArgs(args...)
	}
	out, err := d.run(timeout, name, args...)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return out
}

// composeArgs is the compose command line for args.
func (d *chaosDocker) composeArgs(args ...string) (string, []string) {
	return d.compose[0], append(append(append([]string(nil), d.compose[1:]...),
		"-p", e2etest.ChaosProject, "-f", d.file, "-f", d.override), args...)
}

// buildImage builds the scratch image with the Makefile's recipe, once per run.
func (d *chaosDocker) buildImage(t testing.TB) {
	t.Helper()
	begin := time.Now()
	out, err := d.run(chaosBuildTimeout, "make", "-C", d.root, "image", "IMAGE="+chaosImage)
	if err != nil {
		t.Fatalf("building the image: %v\n%s", err, out)
	}
	t.Logf("make image IMAGE=%s: %v", chaosImage, time.Since(begin).Round(100*time.Millisecond))
}

// down removes the project's containers, networks and volumes.
func (d *chaosDocker) down() (string, error) {
	name, args := d.composeArgs("down", "-v", "--remove-orphans", "-t", "5")
	return d.run(chaosCmdTimeout, name, args...)
}

// up replaces whatever the project was running with a fresh cluster (empty volumes) and
// learns its container IDs. It does not wait for the nodes: see chaosCluster.waitUp.
func (d *chaosDocker) up(t testing.TB) {
	t.Helper()
	if out, err := d.down(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if busy := chaosPortsInUse(); len(busy) > 0 {
		t.Fatalf("%s already in use after removing project %s: is another cluster running (`make cluster-down` stops `make cluster-up`'s)?",
			strings.Join(busy, ", "), e2etest.ChaosProject)
	}
	d.must(t, chaosCmdTimeout, "compose", "up", "-d", "--no-build")
	containers := map[string]string{}
	for _, n := range ChaosNodes {
		id := strings.TrimSpace(d.must(t, chaosCmdTimeout, "compose", "ps", "-q", n.service))
		if id == "" || strings.ContainsAny(id, " \n") {
			t.Fatalf("compose ps -q %s = %q, want one container ID", n.service, id)
		}
		containers[n.Tag] = id
	}
	d.mu.Lock()
	d.containers, d.raftIPs = containers, map[string]string{}
	d.mu.Unlock()
}

// chaosPortsInUse lists the published gRPC addresses that accept connections now.
func chaosPortsInUse() []string {
	var busy []string
	for _, n := range ChaosNodes {
		if c, err := net.DialTimeout("tcp", n.addr, 200*time.Millisecond); err == nil {
			_ = c.Close()
			busy = append(busy, n.addr)
		}
	}
	return busy
}

func (d *chaosDocker) Container(t testing.TB, tag string) string {
	t.Helper()
	d.mu.Lock()
	defer d.mu.Unlock()
	id := d.containers[tag]
	if id == "" {
		t.Fatalf("no container for node %s", tag)
	}
	return id
}

func (d *chaosDocker) containersOf(t testing.TB, tags []string) []string {
	t.Helper()
	ids := make([]string, len(tags))
	for i, tag := range tags {
		ids[i] = d.Container(t, tag)
	}
	return ids
}

// Disconnect cuts node tag off the raft network: Raft and node-to-node gRPC stop, clients
// still reach it through the client network. It remembers the node's address there.
func (d *chaosDocker) Disconnect(t testing.TB, tag string) {
	t.Helper()
	id := d.Container(t, tag)
	ip := strings.TrimSpace(d.must(t, chaosCmdTimeout, "docker", "inspect", "-f",
		fmt.Sprintf(`{{with index .NetworkSettings.Networks %q}}{{.IPAddress}}{{end}}`, d.network), id))
	if net.ParseIP(ip) == nil {
		t.Fatalf("node %s has no address on %s (%q): not connected?", tag, d.network, ip)
	}
	d.must(t, chaosCmdTimeout, "docker", "network", "disconnect", d.network, id)
	d.mu.Lock()
	d.raftIPs[tag] = ip
	d.mu.Unlock()
}

// Connect puts node tag back on the raft network under its alias (raft-a …), which is how the
// other nodes address it, and at the address it had: a partition heals, the machines keep
// their addresses, and TCP connections that were open across it carry on. (Docker would
// otherwise hand out the next free address; with $IDNODE_CHAOS_NEW_IPS=1 it does.)
func (d *chaosDocker) Connect(t testing.TB, tag string) {
	t.Helper()
	args := []string{"network", "connect", "--alias", chaosNodeOf(tag).alias}
	d.mu.Lock()
	ip := d.raftIPs[tag]
	if d.newIPs {
		d.moves++
		base := net.ParseIP(chaosNewIPBase).To4()
		ip = net.IPv4(base[0], base[1], base[2], base[3]+byte(d.moves)).String()
		d.raftIPs[tag] = ip
	}
	d.mu.Unlock()
	if ip != "" {
		args = append(args, "--ip", ip)
	}
	d.must(t, chaosCmdTimeout, "docker", append(args, d.network, d.Container(t, tag))...)
}

// onRaftNetwork reports which nodes are attached to the raft network now.
func (d *chaosDocker) onRaftNetwork(t testing.TB) map[string]bool {
	t.Helper()
	out := d.must(t, chaosCmdTimeout, "docker", "network", "inspect", "-f", "{{range $id, $c := .Containers}}{{$id}} {{end}}", d.network)
	d.mu.Lock()
	defer d.mu.Unlock()
	attached := map[string]bool{}
	for _, id := range strings.Fields(out) {
		for _, n := range ChaosNodes {
			if c := d.containers[n.Tag]; c != "" && strings.HasPrefix(id, c) {
				attached[n.Tag] = true
			}
		}
	}
	return attached
}

// Kill sends SIGKILL (a crash: nothing flushed, no clean shutdown) and waits until the
// container has stopped.
func (d *chaosDocker) Kill(t testing.TB, tags ...string) {
	t.Helper()
	d.must(t, chaosCmdTimeout, "docker", append([]string{"kill", "-s", "KILL"}, d.containersOf(t, tags)...)...)
	for _, id := range d.containersOf(t, tags) {
		d.must(t, chaosCmdTimeout, "docker", "wait", id)
	}
}

// Start starts stopped containers again, with their volumes and network attachments.
func (d *chaosDocker) Start(t testing.TB, tags ...string) {
	t.Helper()
	d.must(t, chaosCmdTimeout, "docker", append([]string{"start"}, d.containersOf(t, tags)...)...)
}

// Pause freezes every process of the containers (cgroup freezer): they keep their sockets and
// answer nothing, as a node stuck in a long GC pause or a frozen VM would.
func (d *chaosDocker) Pause(t testing.TB, tags ...string) {
	t.Helper()
	d.must(t, chaosCmdTimeout, "docker", append([]string{"pause"}, d.containersOf(t, tags)...)...)
}

func (d *chaosDocker) Unpause(t testing.TB, tags ...string) {
	t.Helper()
	d.must(t, chaosCmdTimeout, "docker", append([]string{"unpause"}, d.containersOf(t, tags)...)...)
}

// Restart restarts the containers all at once, each with its own `docker restart` (SIGTERM,
// then SIGKILL after chaosStopGrace seconds), and returns when every one has started again.
func (d *chaosDocker) Restart(t testing.TB, tags ...string) {
	t.Helper()
	errs := make([]error, len(tags))
	outs := make([]string, len(tags))
	var wg sync.WaitGroup
	for i, id := range d.containersOf(t, tags) {
		wg.Go(func() {
			outs[i], errs[i] = d.run(chaosCmdTimeout, "docker", "restart", "-t", fmt.Sprint(chaosStopGrace), id)
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("node %s: %v\n%s", tags[i], err, outs[i])
		}
	}
}

// healAll undoes every fault the schedules inject, ignoring errors (a node that is not paused
// cannot be unpaused): cleanup after a failed schedule, so the logs and the next `compose
// down` see a cluster that can run.
func (d *chaosDocker) healAll(t testing.TB) {
	d.mu.Lock()
	containers, ips := d.containers, d.raftIPs
	d.mu.Unlock()
	for _, n := range ChaosNodes {
		id := containers[n.Tag]
		if id == "" {
			continue
		}
		_, _ = d.run(chaosCmdTimeout, "docker", "unpause", id)
		connect := []string{"network", "connect", "--alias", n.alias}
		if ips[n.Tag] != "" {
			connect = append(connect, "--ip", ips[n.Tag])
		}
		_, _ = d.run(chaosCmdTimeout, "docker", append(connect, d.network, id)...)
		_, _ = d.run(chaosCmdTimeout, "docker", "start", id)
	}
}

// logs returns the last lines of every node's output.
func (d *chaosDocker) logs() string {
	name, args := d.composeArgs("logs", "--no-color", "--tail", chaosLogTail)
	out, err := d.run(chaosCmdTimeout, name, args...)
	if err != nil {
		out += "\n(" + err.Error() + ")"
	}
	return out
}

// chaosConns are the suite's gRPC clients of the three published ports. They outlive the
// clusters: every schedule's fresh cluster is reached on the same ports.
type chaosConns struct {
	ids    map[string]idnodev1.IdServiceClient
	admin  map[string]idnodev1.ClusterServiceClient
	health map[string]healthpb.HealthClient
	series map[string]idnodev1.SeriesServiceClient
}

func chaosDial(t testing.TB) *chaosConns {
	t.Helper()
	cc := &chaosConns{
		ids:   map[string]idnodev1.IdServiceClient{},
		admin: map[string]idnodev1.ClusterServiceClient{}, health: map[string]healthpb.HealthClient{},
		series: map[string]idnodev1.SeriesServiceClient{},
	}
	for _, n := range ChaosNodes {
		conn := e2etest.DialConn(t, n.addr, grpc.WithPerRPCCredentials(client.AdminTokenCredentials(chaosAdminToken)))
		cc.ids[n.Tag] = idnodev1.NewIdServiceClient(conn)
		cc.admin[n.Tag] = idnodev1.NewClusterServiceClient(conn)
		cc.health[n.Tag] = healthpb.NewHealthClient(conn)
		cc.series[n.Tag] = idnodev1.NewSeriesServiceClient(conn)
	}
	return cc
}

// oneLine shortens command output for a message.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// Wipe deletes node tag's container and its data volume: a lost disk, or
// `docker-compose rm -v`. recreate brings the service back with the same flags.
func (d *chaosDocker) Wipe(t testing.TB, tag string) {
	t.Helper()
	d.must(t, chaosCmdTimeout, "docker", "rm", "-f", d.Container(t, tag))
	d.must(t, chaosCmdTimeout, "docker", "volume", "rm", e2etest.ChaosProject+"_"+chaosNodeOf(tag).service+"-data")
}

// Recreate creates and starts node tag's compose service again (after wipe: an empty data
// dir, the same flags) and learns its new container.
func (d *chaosDocker) Recreate(t testing.TB, tag string) {
	t.Helper()
	service := chaosNodeOf(tag).service
	d.must(t, chaosCmdTimeout, "compose", "up", "-d", "--no-deps", "--no-build", service)
	d.learnContainer(t, tag)
}

// learnContainer records and returns the container compose made for node tag's service.
func (d *chaosDocker) learnContainer(t testing.TB, tag string) string {
	t.Helper()
	service := chaosNodeOf(tag).service
	id := strings.TrimSpace(d.must(t, chaosCmdTimeout, "compose", "ps", "-a", "-q", service))
	if id == "" || strings.ContainsAny(id, " \n") {
		t.Fatalf("compose ps -q %s = %q, want one container ID", service, id)
	}
	d.mu.Lock()
	d.containers[tag] = id
	d.mu.Unlock()
	return id
}

// runOnRaftNetwork starts a container of the image outside compose, on the raft network under
// alias, with args as the daemon's flags, and removes it when the test ends.
func (d *chaosDocker) runOnRaftNetwork(t testing.TB, alias string, args ...string) string {
	t.Helper()
	id := strings.TrimSpace(d.must(t, chaosCmdTimeout, "docker", append([]string{"run", "-d", "-e", "IDNODE_ADMIN_TOKEN=" + chaosAdminToken,
		"--network", d.network, "--network-alias", alias, chaosImage}, args...)...))
	t.Cleanup(func() { _, _ = d.run(chaosCmdTimeout, "docker", "rm", "-f", id) })
	return id
}

// Exited waits until container id has exited and returns its exit code and output.
func (d *chaosDocker) Exited(t testing.TB, id string) (int, string) {
	t.Helper()
	out := strings.TrimSpace(d.must(t, chaosCmdTimeout, "docker", "wait", id))
	code, err := strconv.Atoi(out)
	if err != nil {
		t.Fatalf("docker wait %s: %q", id, out)
	}
	logs, _ := d.run(chaosCmdTimeout, "docker", "logs", id)
	return code, logs
}
