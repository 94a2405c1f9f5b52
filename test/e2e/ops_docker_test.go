package e2e

// idctl against the compose cluster of deploy/: the same compose file, Dockerfile and scratch
// image, in a project and on host ports of this test's own (so it runs beside `make
// cluster-up` and the chaos suite), first as it is, then with deploy/docker-compose.tls.yml
// (TLS, mutual TLS between the nodes, admin token, metrics).

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"google.golang.org/grpc/credentials"

	"github.com/idnode/idnode/tlsconfig"
)

const (
	opsDockerCmdTimeout   = 2 * time.Minute // one docker or compose command
	opsDockerBuildTimeout = 5 * time.Minute // go build of the static binary, docker build
	opsDockerUpTimeout    = 60 * time.Second
)

// opsCompose is one compose project of this test.
type opsCompose struct {
	t       *testing.T
	root    string
	dir     string   // temp dir holding the rewritten compose files
	compose []string // "docker compose" or "docker-compose"
	project string
	image   string
	env     []string
	files   []string
	hostOf  map[string]string // published address in deploy/ (127.0.0.1:7071) → this test's
}

// opsDockerFor checks for Docker and compose (skipping without them, failing under CI=true
// as the chaos suite does), and builds the image from deploy/Dockerfile under a tag of its own.
func opsDockerFor(t *testing.T) *opsCompose {
	t.Helper()
	if testing.Short() {
		t.Skip("docker test skipped under -short")
	}
	prereq := func(format string, args ...any) {
		t.Helper()
		if os.Getenv("CI") == "true" {
			t.Fatalf("docker test cannot run: "+format, args...)
		}
		t.Skipf("docker test skipped: "+format, args...)
	}
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	id := uuid.NewString()[:8]
	d := &opsCompose{t: t, root: root, dir: t.TempDir(), project: "idnode-ops-" + id, image: "idnode:ops-" + id, hostOf: map[string]string{}}
	d.env = cleanEnv("COMPOSE_PROJECT_NAME="+d.project, "IDNODE_IMAGE="+d.image)
	ownProject(d.project)
	if _, err := exec.LookPath("docker"); err != nil {
		prereq("no docker on PATH")
	}
	if out, err := d.run(opsDockerCmdTimeout, "docker", "info", "--format", "{{.ServerVersion}}"); err != nil {
		prereq("no Docker engine answers: %v: %s", err, oneLineOf(out))
	}
	if _, err := d.run(opsDockerCmdTimeout, "docker", "compose", "version"); err == nil {
		d.compose = []string{"docker", "compose"}
	} else if _, err := d.run(opsDockerCmdTimeout, "docker-compose", "version"); err == nil {
		d.compose = []string{"docker-compose"}
	} else {
		prereq("neither `docker compose` nor `docker-compose` works")
	}

	// The image: deploy/Dockerfile with a static binary in bin/ and the empty bin/data that
	// becomes /data, as `make image` builds it.
	ctxDir := filepath.Join(d.dir, "image")
	if err := os.MkdirAll(filepath.Join(ctxDir, "bin", "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	dockerfile, err := os.ReadFile(filepath.Join(root, "deploy", "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ctxDir, "Dockerfile"), dockerfile, 0o644); err != nil {
		t.Fatal(err)
	}
	build := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", filepath.Join(ctxDir, "bin", "idnode"), daemonPackage)
	build.Dir, build.Env = root, append(os.Environ(), "CGO_ENABLED=0")
	if out, err := runBounded(build, opsDockerBuildTimeout); err != nil {
		t.Fatalf("static build: %v\n%s", err, out)
	}
	d.must(opsDockerBuildTimeout, "docker", "build", "-q", "--build-arg", "VERSION="+e2eVersion, "-t", d.image, ctxDir)
	t.Cleanup(func() { _, _ = d.run(opsDockerCmdTimeout, "docker", "rmi", "-f", d.image) })
	return d
}

func runBounded(cmd *exec.Cmd, timeout time.Duration) (string, error) {
	done := make(chan struct{})
	timer := time.AfterFunc(timeout, func() {
		if cmd.Process != nil {
			_ = cmd.Process.Kill()
		}
		close(done)
	})
	out, err := cmd.CombinedOutput()
	if !timer.Stop() {
		<-done
		return string(out), fmt.Errorf("%s: no exit within %v", strings.Join(cmd.Args, " "), timeout)
	}
	return string(out), err
}

func (d *opsCompose) run(timeout time.Duration, name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir, cmd.Env, cmd.WaitDelay = d.dir, d.env, time.Second
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		return string(out), fmt.Errorf("%s %s: no exit within %v", name, strings.Join(args, " "), timeout)
	}
	if err != nil {
		return string(out), fmt.Errorf("%s %s: %w", name, strings.Join(args, " "), err)
	}
	return string(out), nil
}

func (d *opsCompose) must(timeout time.Duration, name string, args ...string) string {
	d.t.Helper()
	out, err := d.run(timeout, name, args...)
	if err != nil {
		d.t.Fatalf("%v\n%s", err, out)
	}
	return out
}

func (d *opsCompose) composeCmd(args ...string) (string, []string) {
	all := append([]string(nil), d.compose[1:]...)
	all = append(all, "-p", d.project)
	for _, f := range d.files {
		all = append(all, "-f", f)
	}
	return d.compose[0], append(all, args...)
}

var publishedPort = regexp.MustCompile(`"127\.0\.0\.1:(\d+):(\d+)"`)

// use copies deploy/<names> into the temp dir with every published 127.0.0.1 port moved to a
// free one (hostOf maps them) and the image replaced by this test's, and makes them the
// project's compose files.
func (d *opsCompose) use(names ...string) {
	d.t.Helper()
	d.files = nil
	for _, name := range names {
		src, err := os.ReadFile(filepath.Join(d.root, "deploy", name))
		if err != nil {
			d.t.Fatal(err)
		}
		text := publishedPort.ReplaceAllStringFunc(string(src), func(m string) string {
			p := publishedPort.FindStringSubmatch(m)
			orig := "127.0.0.1:" + p[1]
			if _, ok := d.hostOf[orig]; !ok {
				d.hostOf[orig] = freeAddr(d.t)
			}
			return fmt.Sprintf("%q", d.hostOf[orig]+":"+p[2])
		})
		text = regexp.MustCompile(`(?m)^(\s*)image: .*$`).ReplaceAllString(text, "${1}image: "+d.image)
		dst := filepath.Join(d.dir, name)
		if err := os.WriteFile(dst, []byte(text), 0o644); err != nil {
			d.t.Fatal(err)
		}
		d.files = append(d.files, dst)
	}
}

// up starts the project afresh and waits until the three nodes serve over creds.
func (d *opsCompose) up(creds credentials.TransportCredentials) {
	d.t.Helper()
	d.down()
	name, args := d.composeCmd("up", "-d", "--no-build")
	d.must(opsDockerCmdTimeout, name, args...)
	d.t.Cleanup(func() {
		if d.t.Failed() {
			name, args := d.composeCmd("logs", "--tail", "40")
			out, _ := d.run(opsDockerCmdTimeout, name, args...)
			d.t.Logf("compose logs:\n%s", out)
		}
		d.down()
	})
	for _, addr := range d.grpcAddrs() {
		p := &proc{t: d.t, Tag: addr, GRPCAddr: addr}
		waitServingOver(d.t, p, creds, opsDockerUpTimeout)
	}
}

func (d *opsCompose) down() {
	name, args := d.composeCmd("down", "-v", "--remove-orphans", "-t", "5")
	if out, err := d.run(opsDockerCmdTimeout, name, args...); err != nil {
		d.t.Errorf("%v\n%s", err, out)
	}
}

// grpcAddrs are the three nodes' published gRPC addresses, A, B, C.
func (d *opsCompose) grpcAddrs() []string {
	var out []string
	for _, orig := range []string{"127.0.0.1:7071", "127.0.0.1:7072", "127.0.0.1:7073"} {
		a, ok := d.hostOf[orig]
		if !ok {
			d.t.Fatalf("deploy/docker-compose.yml no longer publishes %s", orig)
		}
		out = append(out, a)
	}
	return out
}

// checkImage fails the test unless the project's containers run as an unprivileged user (the
// image's numeric USER; the node wrote its named volume as that user, or it would not serve)
// and the image carries its OCI labels.
func (d *opsCompose) checkImage() {
	d.t.Helper()
	name, args := d.composeCmd("ps", "-q")
	ids := strings.Fields(d.must(opsDockerCmdTimeout, name, args...))
	if len(ids) != 3 {
		d.t.Fatalf("compose ps: %d containers, want 3", len(ids))
	}
	for _, id := range ids {
		user := strings.TrimSpace(d.must(opsDockerCmdTimeout, "docker", "inspect", "-f", "{{.Config.User}}", id))
		if uid, _, _ := strings.Cut(user, ":"); uid == "" || uid == "0" || uid == "root" {
			d.t.Errorf("container %s runs as user %q; want an unprivileged one", id, user)
		}
		// The process itself, as the host sees it.
		// PID UID, then pid uid per process: the node, and whatever a docker exec runs in the
		// container at that moment.
		top := strings.Fields(d.must(opsDockerCmdTimeout, "docker", "top", id, "-o", "pid,uid"))
		root := len(top) < 4 || len(top)%2 != 0
		for i := 3; i < len(top); i += 2 {
			root = root || top[i] == "0"
		}
		if root {
			d.t.Errorf("container %s: docker top says uid %v; want non-root", id, top)
		}
	}
	labels := d.must(opsDockerCmdTimeout, "docker", "inspect", "-f", "{{json .Config.Labels}}", d.image)
	for _, want := range []string{
		`"org.opencontainers.image.version":"` + e2eVersion + `"`,
		`"org.opencontainers.image.source":"https://github.com/idnode/idnode"`,
		`"org.opencontainers.image.licenses":"Apache-2.0"`,
	} {
		if !strings.Contains(labels, want) {
			d.t.Errorf("image labels %s lack %s", strings.TrimSpace(labels), want)
		}
	}
}

func oneLineOf(s string) string { return strings.Join(strings.Fields(s), " ") }

// TestIdctlAgainstDockerCluster runs the idctl commands against the compose cluster, plain and
// with the TLS override.
func TestIdctlAgainstDockerCluster(t *testing.T) {
	t.Parallel()
	d := opsDockerFor(t)

	t.Run("plain", func(t *testing.T) {
		d.t = t
		// idctl on the host is not on a node's loopback: admin calls need the token.
		const token = "plain-admin-token"
		d.env = append(d.env, "IDNODE_ADMIN_TOKEN="+token)
		d.use("docker-compose.yml")
		d.up(nil)
		d.checkImage()
		addrs := d.grpcAddrs()
		env := []string{"IDNODE_ADDR=" + strings.Join(addrs, ","), "IDNODE_TOKEN=" + token}
		st := idctlStatus(t, env)
		if len(st.Nodes) != 3 || st.Leader == "" {
			t.Fatalf("status: %+v", st)
		}
		for _, n := range st.Nodes {
			// The registered gRPC addresses are the raft network's (raft-a:7070); idctl on the
			// host reads each node's own term through --addr.
			if !n.Reachable || !n.Answered || !strings.HasPrefix(n.GRPCAddress, "raft-") {
				t.Errorf("status of node %s: %+v", n.Tag, n)
			}
		}
		if got := mustIdctl(t, []string{"IDNODE_ADDR=" + addrs[1]}, "next", "orders|", "-n", "3"); got != "orders/1\norders/2\norders/3\n" {
			t.Errorf("next via B = %q", got)
		}
		if got := mustIdctl(t, env, "next", "users/"); got != "users/0000000000000000001-A\n" {
			t.Errorf("next users/ via A = %q", got)
		}
		mustIdctl(t, env, "seed", "invoices", "100")
		if out := mustIdctl(t, env, "identities"); !regexp.MustCompile(`invoices\s+100\norders\s+3\n$`).MatchString(out) {
			t.Errorf("identities:\n%s", out)
		}
		out := mustIdctl(t, env, "hilo", "next", "carts")
		grant := regexp.MustCompile(` as (\S+)\)$`).FindStringSubmatch(strings.TrimSpace(out))
		if !strings.HasPrefix(out, "carts/1-") || grant == nil {
			t.Fatalf("hilo next = %q", out)
		}
		mustIdctl(t, env, "hilo", "return", "carts", "32", "0", grant[1])
		to := "C"
		if st.Leader == "C" {
			to = "B"
		}
		if out := mustIdctl(t, env, "leader", "transfer", to); out != "leader: "+to+"\n" {
			t.Errorf("leader transfer %s = %q", to, out)
		}
		mustIdctl(t, env, "node", "add", "-", "--raft-addr", "raft-d:7000", "--grpc-addr", "raft-d:7070", "--non-voter")
		mustIdctl(t, env, "node", "remove", "D")
		file := filepath.Join(t.TempDir(), "compose.backup")
		mustIdctl(t, env, "backup", file)
		wantIdctlFailure(t, 1, env, []string{"restore", file}, "FAILED_PRECONDITION")
	})

	t.Run("tls", func(t *testing.T) {
		d.t = t
		certs := t.TempDir()
		mustIdctl(t, nil, "certs", "ca", "--dir", certs)
		for _, n := range []string{"a", "b", "c"} {
			mustIdctl(t, nil, "certs", "node", strings.ToUpper(n), "--dir", certs, "--host", "raft-"+n+",idnode-"+n)
		}
		mustIdctl(t, nil, "certs", "client", "app", "--dir", certs)
		mustIdctl(t, nil, "certs", "client", "ops", "--dir", certs, "--admin")
		// The nodes run as an unprivileged user, not the owner of these files: their keys must
		// be readable by it (deploy/docker-compose.tls.yml).
		for _, n := range []string{"A", "B", "C"} {
			if err := os.Chmod(filepath.Join(certs, n+".key"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		// No admin token this time (the plain run set one): admin goes by certificate.
		d.env = append(d.env, "IDNODE_CERTS="+certs, "IDNODE_ADMIN_TOKEN=")
		d.use("docker-compose.yml", "docker-compose.tls.yml")
		ca := filepath.Join(certs, "ca.crt")
		tc, err := tlsconfig.Client(ca, filepath.Join(certs, "ops.crt"), filepath.Join(certs, "ops.key"), "")
		if err != nil {
			t.Fatal(err)
		}
		d.up(credentials.NewTLS(tc))
		// as is idctl's environment for the cluster with client certificate name ("" for none).
		as := func(name string, addrs ...string) []string {
			env := []string{"IDNODE_ADDR=" + strings.Join(addrs, ","), "IDNODE_TLS_CA=" + ca}
			if name != "" {
				env = append(env, "IDNODE_TLS_CERT="+filepath.Join(certs, name+".crt"), "IDNODE_TLS_KEY="+filepath.Join(certs, name+".key"))
			}
			return env
		}
		st := idctlStatus(t, as("app", d.grpcAddrs()...))
		if len(st.Nodes) != 3 {
			t.Fatalf("status over mTLS: %+v", st)
		}
		for _, n := range st.Nodes {
			if !n.Reachable || !n.Answered {
				t.Errorf("status over mTLS, node %s: %+v", n.Tag, n)
			}
		}
		for i, addr := range d.grpcAddrs() {
			got := mustIdctl(t, as("app", addr), "next", "orders|")
			if want := fmt.Sprintf("orders/%d\n", i+1); got != want {
				t.Errorf("next via %s over mTLS = %q, want %q", addr, got, want)
			}
		}
		wantIdctlFailure(t, 1, []string{"IDNODE_ADDR=" + d.grpcAddrs()[0]}, []string{"status"}, "UNAVAILABLE")
		wantIdctlFailure(t, 1, as("", d.grpcAddrs()[0]), []string{"status"}, "UNAVAILABLE")
		// The host's calls reach the containers through Docker's port mapping, not loopback:
		// admin needs the admin certificate.
		wantIdctlFailure(t, 1, as("app", d.grpcAddrs()...), []string{"node", "remove", "Z"}, "PERMISSION_DENIED", tlsconfig.AdminUnit)
		wantIdctlFailure(t, 1, as("ops", d.grpcAddrs()...), []string{"node", "remove", "Z"}, "NOT_FOUND")
		// The image's health check (`idnode health`) reads IDNODE_TLS_* too.
		name, args := d.composeCmd("ps", "-q")
		ids := strings.Fields(d.must(opsDockerCmdTimeout, name, args...))
		if len(ids) != 3 {
			t.Fatalf("compose ps -q: %q", ids)
		}
		eventually(t, opsDockerUpTimeout, "the containers are healthy", func() error {
			for _, id := range ids {
				out, err := d.run(opsDockerCmdTimeout, "docker", "inspect", "-f", "{{.State.Health.Status}}", id)
				if err != nil || strings.TrimSpace(out) != "healthy" {
					return fmt.Errorf("container %.12s: %s %v", id, strings.TrimSpace(out), err)
				}
			}
			return nil
		})
		metrics := d.hostOf["127.0.0.1:9101"]
		if metrics == "" {
			t.Fatal("deploy/docker-compose.yml no longer publishes metrics on 127.0.0.1:9101")
		}
		body := scrape(t, metrics)
		if got := metricValue(t, body, `idnode_raft_state{state="leader"}`) + metricValue(t, body, `idnode_raft_state{state="follower"}`); got != 1 {
			t.Errorf("node A is neither leader nor follower:\n%s", grep(body, "idnode_raft_state"))
		}
	})
}
