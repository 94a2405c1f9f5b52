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
	"slices"
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
	"github.com/idnode/idnode/test/helpers/prebuilt"
)

const (
	// chaosImage is built by `make image IMAGE=idnode:chaos` and run by compose through
	// IDNODE_IMAGE, so a developer's idnode:dev is left alone.
	chaosImage = prebuilt.ChaosImage
	// chaosAdminToken is the compose cluster's admin token: the suite's admin calls come from
	// the host (or a container), not from a node's own loopback.
	chaosAdminToken = "chaos-admin-token"

	chaosDockerInfoTimeout = 20 * time.Second // `docker info`
	chaosCmdTimeout        = 60 * time.Second // any other docker or compose command
	chaosBuildTimeout      = 5 * time.Minute  // make image (go build on a cold cache, docker build)
	chaosStopGrace         = 10               // seconds docker restart waits after SIGTERM (as compose's stop_grace_period)
	chaosLogTail           = "80"             // log lines per node shown when a schedule fails

	// chaosNewIPsEnv=1 makes every reconnect move the node to a new address instead (the
	// raft subnet's host chaosNewIPBase + 1, + 2, …): the daemon's open peer connections, to or
	// from the old address, then have to notice that it is gone.
	chaosNewIPsEnv = "IDNODE_CHAOS_NEW_IPS"
	chaosNewIPBase = 100
)

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
	root     string // module root
	project  string // the compose project: the cluster's chaos slot's
	file     string // deploy/docker-compose.yml with the slot's ports (ChaosCluster.composeFile), in a temp dir
	override string // the cluster's override (ChaosCluster.override), written to a temp file
	cluster  *ChaosCluster
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
func chaosDockerFor(t *testing.T, cluster *ChaosCluster) *chaosDocker {
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
	project := cluster.slot.Project()
	dir := t.TempDir()
	d := &chaosDocker{
		root: root, project: project, file: filepath.Join(dir, "docker-compose.yml"),
		override:   filepath.Join(dir, "docker-compose.chaos.yml"),
		cluster:    cluster,
		env:        append(nodeenv.Clean(), "IDNODE_IMAGE="+chaosImage, "COMPOSE_PROJECT_NAME="+project, "IDNODE_ADMIN_TOKEN="+chaosAdminToken),
		newIPs:     os.Getenv(chaosNewIPsEnv) == "1",
		containers: map[string]string{},
		raftIPs:    map[string]string{},
		network:    project + "_raft",
	}
	e2etest.OwnProject(project)
	deploy, err := os.ReadFile(filepath.Join(root, "deploy", "docker-compose.yml"))
	if err != nil {
		t.Fatal(err)
	}
	file, err := cluster.composeFile(string(deploy))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(d.file, []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(d.override, []byte(cluster.override()), 0o644); err != nil {
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
		"-p", d.project, "-f", d.file, "-f", d.override), args...)
}

// buildImage builds the scratch image with the Makefile's recipe, once per test binary and
// one suite at a time (ChaosImageLock), unless the run built it ahead for every package
// (test/helpers/prebuilt).
func (d *chaosDocker) buildImage(t testing.TB) {
	t.Helper()
	if prebuilt.ImageBuilt(chaosImage) {
		t.Logf("%s: built ahead for this run ($%s)", chaosImage, prebuilt.Env)
		return
	}
	begin := time.Now()
	release, err := e2etest.ChaosImageLock(chaosBuildTimeout)
	if err != nil {
		t.Fatalf("waiting for another chaos suite's image build: %v", err)
	}
	defer release()
	out, err := d.run(chaosBuildTimeout, "make", "-C", d.root, "image", "IMAGE="+chaosImage)
	if err != nil {
		t.Fatalf("building the image: %v\n%s", err, out)
	}
	t.Logf("make image IMAGE=%s: %v", chaosImage, time.Since(begin).Round(100*time.Millisecond))
}

// down removes the project's containers, networks and volumes, and then the networks of
// partitions (Partition) that a failed schedule left.
func (d *chaosDocker) down() (string, error) {
	name, args := d.composeArgs("down", "-v", "--remove-orphans", "-t", "5")
	out, err := d.run(chaosCmdTimeout, name, args...)
	if err != nil {
		return out, err
	}
	left, err := d.run(chaosCmdTimeout, "docker", "network", "ls", "-q", "--filter", "label="+e2etest.ComposeProjectLabel+"="+d.project)
	if err != nil || strings.TrimSpace(left) == "" {
		return out + left, err
	}
	rm, err := d.run(chaosCmdTimeout, "docker", append([]string{"network", "rm"}, strings.Fields(left)...)...)
	return out + rm, err
}

// up replaces whatever the project was running with a fresh cluster (empty volumes) and
// learns its container IDs. It does not wait for the nodes: see chaosCluster.waitUp.
func (d *chaosDocker) up(t testing.TB) {
	t.Helper()
	if out, err := d.down(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if busy := d.cluster.portsInUse(); len(busy) > 0 {
		t.Fatalf("%s already in use after removing project %s: is another cluster running (`make cluster-down` stops `make cluster-up`'s)?",
			strings.Join(busy, ", "), d.project)
	}
	d.must(t, chaosCmdTimeout, "compose", "up", "-d", "--no-build")
	byService := d.serviceContainers(t)
	containers := map[string]string{}
	for _, n := range d.cluster.nodes {
		containers[n.Tag] = oneContainer(t, byService, n.service)
	}
	d.mu.Lock()
	d.containers, d.raftIPs = containers, map[string]string{}
	d.mu.Unlock()
}

// portsInUse lists the cluster's published gRPC addresses that accept connections now.
func (c *ChaosCluster) portsInUse() []string {
	var busy []string
	for _, n := range c.nodes {
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
	args := []string{"network", "connect", "--alias", d.cluster.node(tag).alias}
	d.mu.Lock()
	ip := d.raftIPs[tag]
	if d.newIPs {
		d.moves++
		ip = d.cluster.raftAddr(chaosNewIPBase + byte(d.moves))
		d.raftIPs[tag] = ip
	}
	d.mu.Unlock()
	if ip != "" {
		args = append(args, "--ip", ip)
	}
	d.must(t, chaosCmdTimeout, "docker", append(args, d.network, d.Container(t, tag))...)
}

// Partition cuts the nodes tags off the raft network together and puts them, under their
// aliases, on network <project>_<name> of their own: they reach each other, and no other node,
// for Raft and node-to-node gRPC, as the nodes of a region cut off by its links do. Docker
// cannot drop traffic between some nodes of one network, so the group moves to another, at
// new addresses there; HealPartition puts each back on the raft network at its old address.
// The network carries the project's compose label, so down and the sweep remove it.
func (d *chaosDocker) Partition(t testing.TB, name string, tags ...string) {
	t.Helper()
	network := d.project + "_" + name
	d.must(t, chaosCmdTimeout, "docker", "network", "create", "--internal", "--label", e2etest.ComposeProjectLabel+"="+d.project, network)
	for _, tag := range tags {
		d.Disconnect(t, tag)
		d.must(t, chaosCmdTimeout, "docker", "network", "connect", "--alias", d.cluster.node(tag).alias, network, d.Container(t, tag))
	}
}

// HealPartition takes the nodes tags off network <project>_<name> and puts them back on the
// raft network (Connect), then removes that network.
func (d *chaosDocker) HealPartition(t testing.TB, name string, tags ...string) {
	t.Helper()
	network := d.project + "_" + name
	for _, tag := range tags {
		d.must(t, chaosCmdTimeout, "docker", "network", "disconnect", network, d.Container(t, tag))
		d.Connect(t, tag)
	}
	d.must(t, chaosCmdTimeout, "docker", "network", "rm", network)
}

// onRaftNetwork reports which nodes are attached to the raft network now.
func (d *chaosDocker) onRaftNetwork(t testing.TB) map[string]bool {
	t.Helper()
	out := d.must(t, chaosCmdTimeout, "docker", "network", "inspect", "-f", "{{range $id, $c := .Containers}}{{$id}} {{end}}", d.network)
	d.mu.Lock()
	defer d.mu.Unlock()
	attached := map[string]bool{}
	for _, id := range strings.Fields(out) {
		for _, n := range d.cluster.nodes {
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
// answer nothing, as a node stuck in a long GC pause or a frozen VM would. Each container is
// paused on its own: the freezer gives up ("unable to freeze") when a process does not stop in
// time, which a busy machine's disk can cause, and runc thaws that container again, so it is
// tried again alone, as an operator would.
func (d *chaosDocker) Pause(t testing.TB, tags ...string) {
	t.Helper()
	for _, id := range d.containersOf(t, tags) {
		e2etest.AgainWhileTransient(t, "docker pause "+id, "unable to freeze", func() (string, error) {
			return d.run(chaosCmdTimeout, "docker", "pause", id)
		}, nil)
	}
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
	for _, n := range d.cluster.nodes {
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

// chaosEvents are the log messages that tell a schedule's story when it fails, whatever the
// tail shows (a tail of 80 lines may be one node's repeated refusals): who led when, every
// log suffix a follower cleared and snapshot it installed, and what the replica checks and
// fences said. A member found differing is explained by these: which node led, and which
// entries it lost, before its state went another way.
var chaosEvents = []string{
	`"entering leader state"`, `"clearing log suffix"`, `"discarding a log that conflicts with the installed snapshot"`,
	`"Installed remote snapshot"`, `"failed to`, `"a replica's state digest differs"`, `"fenced a member whose state diverged`,
	`"this node's state digest differs from the cluster's at start`,
}

// chaosEventLines bounds the event lines shown for a failed schedule.
const chaosEventLines = 300

// events is the chaosEvents lines of every node's whole log (eventLines).
func (d *chaosDocker) events() string {
	name, args := d.composeArgs("logs", "--no-color")
	out, err := d.run(chaosCmdTimeout, name, args...)
	events := eventLines(out)
	if err != nil {
		events += "\n(" + err.Error() + ")"
	}
	return events
}

// eventLines keeps the lines of logs that carry one of chaosEvents, in their order, at most
// chaosEventLines of them, and says how many more there were.
func eventLines(logs string) string {
	var kept []string
	more := 0
	for line := range strings.Lines(logs) {
		if !slices.ContainsFunc(chaosEvents, func(e string) bool { return strings.Contains(line, e) }) {
			continue
		}
		if len(kept) == chaosEventLines {
			more++
			continue
		}
		kept = append(kept, strings.TrimSuffix(line, "\n"))
	}
	if more > 0 {
		kept = append(kept, fmt.Sprintf("(%d more)", more))
	}
	return strings.Join(kept, "\n")
}

// chaosConns are the suite's gRPC clients of the cluster's published ports. They outlive the
// clusters: every schedule's fresh cluster is reached on the same ports.
type chaosConns struct {
	cluster *ChaosCluster
	ids     map[string]idnodev1.IdServiceClient
	admin   map[string]idnodev1.ClusterServiceClient
	health  map[string]healthpb.HealthClient
	series  map[string]idnodev1.SeriesServiceClient
}

func chaosDial(t testing.TB, cluster *ChaosCluster) *chaosConns {
	t.Helper()
	cc := &chaosConns{
		cluster: cluster,
		ids:     map[string]idnodev1.IdServiceClient{},
		admin:   map[string]idnodev1.ClusterServiceClient{}, health: map[string]healthpb.HealthClient{},
		series: map[string]idnodev1.SeriesServiceClient{},
	}
	for _, n := range cluster.nodes {
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
	d.must(t, chaosCmdTimeout, "docker", "rm", "-f", "-v", d.Container(t, tag))
	d.must(t, chaosCmdTimeout, "docker", "volume", "rm", d.project+"_"+d.cluster.node(tag).service+"-data")
}

// Recreate creates and starts node tag's compose service again (after wipe: an empty data
// dir, the same flags) and learns its new container.
func (d *chaosDocker) Recreate(t testing.TB, tag string) {
	t.Helper()
	service := d.cluster.node(tag).service
	d.must(t, chaosCmdTimeout, "compose", "up", "-d", "--no-deps", "--no-build", service)
	d.learnContainer(t, tag)
}

// learnContainer records and returns the container compose made for node tag's service.
func (d *chaosDocker) learnContainer(t testing.TB, tag string) string {
	t.Helper()
	id := oneContainer(t, d.serviceContainers(t), d.cluster.node(tag).service)
	d.mu.Lock()
	d.containers[tag] = id
	d.mu.Unlock()
	return id
}

// serviceContainers lists the project's containers, running or not, by compose service, as
// the labels compose gives them say. One docker call rather than a `compose ps` per service:
// docker-compose v1 is a Python program that costs some half a CPU second a call, and a run
// brings up a cluster for every schedule.
func (d *chaosDocker) serviceContainers(t testing.TB) map[string][]string {
	t.Helper()
	out := d.must(t, chaosCmdTimeout, "docker", "ps", "-a", "--no-trunc",
		"--filter", "label="+e2etest.ComposeProjectLabel+"="+d.project,
		"--format", `{{.ID}} {{.Label "`+composeServiceLabel+`"}}`)
	return containersByService(out)
}

// composeServiceLabel is the label compose gives a container: the service it runs.
const composeServiceLabel = "com.docker.compose.service"

// containersByService reads serviceContainers' lines, "ID SERVICE"; a container of the project
// started outside compose (runOnRaftNetwork) has no service and is left out.
func containersByService(out string) map[string][]string {
	by := map[string][]string{}
	for _, line := range strings.Split(out, "\n") {
		if id, service, ok := strings.Cut(strings.TrimSpace(line), " "); ok && id != "" && service != "" {
			by[service] = append(by[service], id)
		}
	}
	return by
}

// oneContainer is service's container, which must be one.
func oneContainer(t testing.TB, byService map[string][]string, service string) string {
	t.Helper()
	ids := byService[service]
	if len(ids) != 1 {
		t.Fatalf("service %s has containers %q, want one", service, ids)
	}
	return ids[0]
}

// runOnRaftNetwork starts a container of the image outside compose, on the raft network under
// alias, with args as the daemon's flags, and removes it and its /data volume when the test
// ends (labelled as the chaos project's, so a sweep removes them after a killed run).
func (d *chaosDocker) runOnRaftNetwork(t testing.TB, alias string, args ...string) string {
	t.Helper()
	run := append([]string{"run", "-d", "-e", "IDNODE_ADMIN_TOKEN=" + chaosAdminToken}, e2etest.OwnedContainerArgs(d.project)...)
	run = append(append(run, "--network", d.network, "--network-alias", alias, chaosImage), args...)
	id := strings.TrimSpace(d.must(t, chaosCmdTimeout, "docker", run...))
	t.Cleanup(func() { _, _ = d.run(chaosCmdTimeout, "docker", "rm", "-f", "-v", id) })
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
