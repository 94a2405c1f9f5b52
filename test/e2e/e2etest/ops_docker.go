package e2etest

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

	"github.com/idnode/idnode/test/helpers/nodeenv"
	"github.com/idnode/idnode/test/helpers/prebuilt"
)

const (
	OpsDockerCmdTimeout   = 2 * time.Minute // one docker or compose command
	OpsDockerBuildTimeout = 5 * time.Minute // go build of the static binary, docker build
	OpsDockerUpTimeout    = 60 * time.Second
)

// OpsCompose is one compose project of this test.
type OpsCompose struct {
	T       *testing.T
	Root    string
	dir     string   // temp dir holding the rewritten compose files
	compose []string // "docker compose" or "docker-compose"
	Project string
	Image   string
	Env     []string
	names   []string // the deploy/ files Use was given
	files   []string
	HostOf  map[string]string // published address in deploy/ (127.0.0.1:7071) → this test's
}

// OpsDockerFor checks for Docker and compose (skipping without them, failing under CI=true
// as the chaos suite does), and builds the image from deploy/Dockerfile under a tag of its own.
func OpsDockerFor(t *testing.T) *OpsCompose {
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
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	id := uuid.NewString()[:8]
	d := &OpsCompose{T: t, Root: root, dir: t.TempDir(), Project: "idnode-ops-" + id, Image: "idnode:ops-" + id, HostOf: map[string]string{}}
	d.Env = nodeenv.Clean("COMPOSE_PROJECT_NAME="+d.Project, "IDNODE_IMAGE="+d.Image)
	OwnProject(d.Project)
	if _, err := exec.LookPath("docker"); err != nil {
		prereq("no docker on PATH")
	}
	if out, err := d.Run(OpsDockerCmdTimeout, "docker", "info", "--format", "{{.ServerVersion}}"); err != nil {
		prereq("no Docker engine answers: %v: %s", err, oneLineOf(out))
	}
	if _, err := d.Run(OpsDockerCmdTimeout, "docker", "compose", "version"); err == nil {
		d.compose = []string{"docker", "compose"}
	} else if _, err := d.Run(OpsDockerCmdTimeout, "docker-compose", "version"); err == nil {
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
	ctx, cancel := context.WithTimeout(context.Background(), OpsDockerBuildTimeout)
	defer cancel()
	if err := prebuilt.IdnodeStatic.Place(ctx, root, filepath.Join(ctxDir, "bin", "idnode")); err != nil {
		t.Fatalf("static build: %v", err)
	}
	d.Must(OpsDockerBuildTimeout, "docker", "build", "-q", "--build-arg", "VERSION="+E2EVersion, "-t", d.Image, ctxDir)
	t.Cleanup(func() { _, _ = d.Run(OpsDockerCmdTimeout, "docker", "rmi", "-f", d.Image) })
	return d
}

func (d *OpsCompose) Run(timeout time.Duration, name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir, cmd.Env, cmd.WaitDelay = d.dir, d.Env, time.Second
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		return string(out), fmt.Errorf("%s %s: no exit within %v", name, strings.Join(args, " "), timeout)
	}
	if err != nil {
		return string(out), fmt.Errorf("%s %s: %w", name, strings.Join(args, " "), err)
	}
	return string(out), nil
}

func (d *OpsCompose) Must(timeout time.Duration, name string, args ...string) string {
	d.T.Helper()
	out, err := d.Run(timeout, name, args...)
	if err != nil {
		d.T.Fatalf("%v\n%s", err, out)
	}
	return out
}

func (d *OpsCompose) ComposeCmd(args ...string) (string, []string) {
	all := append([]string(nil), d.compose[1:]...)
	all = append(all, "-p", d.Project)
	for _, f := range d.files {
		all = append(all, "-f", f)
	}
	return d.compose[0], append(all, args...)
}

// PublishedPort matches a port a compose file of deploy/ publishes, "127.0.0.1:7071:7070":
// the host's port, then the container's.
var PublishedPort = regexp.MustCompile(`"127\.0\.0\.1:(\d+):(\d+)"`)

// MovePublishedPorts rewrites every port text publishes on 127.0.0.1 to the host address
// to gives for it ("127.0.0.1:7071" → another), and says how many it moved: the ops tests
// move them to free ports, a chaos suite to its slot's.
func MovePublishedPorts(text string, to func(orig string) string) (string, int) {
	var moved int
	out := PublishedPort.ReplaceAllStringFunc(text, func(m string) string {
		p := PublishedPort.FindStringSubmatch(m)
		moved++
		return fmt.Sprintf("%q", to("127.0.0.1:"+p[1])+":"+p[2])
	})
	return out, moved
}

// Use copies deploy/<names> into the temp dir with every published 127.0.0.1 port moved to a
// free one (hostOf maps them) and the image replaced by this test's, and makes them the
// project's compose files. Each Use takes ports of its own: a subtest that went up on the
// ports the one before had used, minutes earlier, failed with "address already in use" on a
// busy machine.
func (d *OpsCompose) Use(names ...string) {
	d.T.Helper()
	d.names, d.files = names, nil
	d.HostOf = map[string]string{}
	for _, name := range names {
		src, err := os.ReadFile(filepath.Join(d.Root, "deploy", name))
		if err != nil {
			d.T.Fatal(err)
		}
		text, _ := MovePublishedPorts(string(src), func(orig string) string {
			if _, ok := d.HostOf[orig]; !ok {
				d.HostOf[orig] = FreeAddr(d.T)
			}
			return d.HostOf[orig]
		})
		text = regexp.MustCompile(`(?m)^(\s*)image: .*$`).ReplaceAllString(text, "${1}image: "+d.Image)
		dst := filepath.Join(d.dir, name)
		if err := os.WriteFile(dst, []byte(text), 0o644); err != nil {
			d.T.Fatal(err)
		}
		d.files = append(d.files, dst)
	}
}

// Up starts the project afresh and waits until the three nodes serve over creds.
func (d *OpsCompose) Up(creds credentials.TransportCredentials) {
	d.T.Helper()
	d.down()
	// A port reserved for this test can still be taken by a process that takes no
	// reservations (loopback.FreePort): the project goes up again on other ports.
	AgainWhileTransient(d.T, "compose up", "address already in use", func() (string, error) {
		name, args := d.ComposeCmd("up", "-d", "--no-build")
		return d.Run(OpsDockerCmdTimeout, name, args...)
	}, func() {
		d.down()
		d.Use(d.names...)
	})
	d.T.Cleanup(func() {
		if d.T.Failed() {
			name, args := d.ComposeCmd("logs", "--tail", "40")
			out, _ := d.Run(OpsDockerCmdTimeout, name, args...)
			d.T.Logf("compose logs:\n%s", out)
		}
		d.down()
	})
	for _, addr := range d.GRPCAddrs() {
		p := &Proc{t: d.T, Tag: addr, GRPCAddr: addr}
		WaitServingOver(d.T, p, creds, OpsDockerUpTimeout)
	}
}

func (d *OpsCompose) down() {
	name, args := d.ComposeCmd("down", "-v", "--remove-orphans", "-t", "5")
	if out, err := d.Run(OpsDockerCmdTimeout, name, args...); err != nil {
		d.T.Errorf("%v\n%s", err, out)
	}
}

// GRPCAddrs are the three nodes' published gRPC addresses, A, B, C.
func (d *OpsCompose) GRPCAddrs() []string {
	var out []string
	for _, orig := range []string{"127.0.0.1:7071", "127.0.0.1:7072", "127.0.0.1:7073"} {
		a, ok := d.HostOf[orig]
		if !ok {
			d.T.Fatalf("deploy/docker-compose.yml no longer publishes %s", orig)
		}
		out = append(out, a)
	}
	return out
}

// CheckImage fails the test unless the project's containers run as an unprivileged user (the
// image's numeric USER; the node wrote its named volume as that user, or it would not serve)
// and the image carries its OCI labels.
func (d *OpsCompose) CheckImage() {
	d.T.Helper()
	name, args := d.ComposeCmd("ps", "-q")
	ids := strings.Fields(d.Must(OpsDockerCmdTimeout, name, args...))
	if len(ids) != 3 {
		d.T.Fatalf("compose ps: %d containers, want 3", len(ids))
	}
	for _, id := range ids {
		user := strings.TrimSpace(d.Must(OpsDockerCmdTimeout, "docker", "inspect", "-f", "{{.Config.User}}", id))
		if uid, _, _ := strings.Cut(user, ":"); uid == "" || uid == "0" || uid == "root" {
			d.T.Errorf("container %s runs as user %q; want an unprivileged one", id, user)
		}
		// The process itself, as the host sees it.
		// PID UID, then pid uid per process: the node, and whatever a docker exec runs in the
		// container at that moment.
		top := strings.Fields(d.Must(OpsDockerCmdTimeout, "docker", "top", id, "-o", "pid,uid"))
		root := len(top) < 4 || len(top)%2 != 0
		for i := 3; i < len(top); i += 2 {
			root = root || top[i] == "0"
		}
		if root {
			d.T.Errorf("container %s: docker top says uid %v; want non-root", id, top)
		}
	}
	labels := d.Must(OpsDockerCmdTimeout, "docker", "inspect", "-f", "{{json .Config.Labels}}", d.Image)
	for _, want := range []string{
		`"org.opencontainers.image.version":"` + E2EVersion + `"`,
		`"org.opencontainers.image.source":"https://github.com/idnode/idnode"`,
		`"org.opencontainers.image.licenses":"Apache-2.0"`,
	} {
		if !strings.Contains(labels, want) {
			d.T.Errorf("image labels %s lack %s", strings.TrimSpace(labels), want)
		}
	}
}

func oneLineOf(s string) string { return strings.Join(strings.Fields(s), " ") }
