// Package conformancetest is what the Go tests that run the clients' conformance runners share:
// the binaries the runners need, the check that a client's toolchain is there, and running a
// runner as a child process whose output goes to the test's log.
package conformancetest

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idnode/idnode/test/helpers/nodeenv"
	"github.com/idnode/idnode/test/helpers/prebuilt"
)

// Time limits: building the binaries on a cold cache, a runner's run when the test has no
// deadline (go test -timeout 0), and what a runner leaves of the test's deadline for its
// output to reach the log and the test to fail with it.
const (
	buildTimeout = 3 * time.Minute
	noDeadline   = 8 * time.Minute
	reportMargin = 30 * time.Second
)

// RunContext bounds the runners of test t: they end reportMargin before go test's own
// -timeout (10 minutes unless the command says), whose panic would end the process with
// their output unprinted. A fixed bound shorter than that failed a Maven build that a cold,
// loaded machine would have finished in time; one longer lets the panic come first.
func RunContext(t *testing.T) (context.Context, context.CancelFunc) {
	deadline, ok := t.Deadline()
	if !ok {
		return context.WithTimeout(context.Background(), noDeadline)
	}
	return context.WithDeadline(context.Background(), deadline.Add(-reportMargin))
}

// RepoRoot is the repository's root: the folder above this package's test/conformance whose
// go.mod is the idnode module.
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		mod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.HasPrefix(mod, []byte("module github.com/idnode/idnode\n")) {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("conformancetest: no idnode module root above the working directory")
		}
		dir = parent
	}
}

// Env finds or builds idnode and idcluster (test/helpers/prebuilt: a CI run builds them
// once; otherwise the first test package to run them does) and returns the environment for a runner: this process's, without a developer's
// IDNODE_* settings, plus IDNODE_BIN, IDNODE_CLUSTER_BIN and IDNODE_CONFORMANCE_DIR.
func Env(t testing.TB) []string {
	t.Helper()
	root := RepoRoot(t)
	ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
	defer cancel()
	var paths [2]string
	for i, p := range []prebuilt.Program{prebuilt.Idnode, prebuilt.IDCluster} {
		path, err := p.Path(ctx, root)
		if err != nil {
			t.Fatalf("building the conformance binaries: %v", err)
		}
		paths[i] = path
	}
	return nodeenv.Clean(
		"IDNODE_BIN="+paths[0],
		"IDNODE_CLUSTER_BIN="+paths[1],
		"IDNODE_CONFORMANCE_DIR="+filepath.Join(root, "test", "conformance", "scenarios"))
}

// Need skips the test when ok is false, naming what to install; under CI=true it fails
// instead, since CI installs every client's toolchain (.ci/run).
func Need(t testing.TB, what string, ok bool) {
	t.Helper()
	if ok {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("missing %s (CI installs it: see .ci/run)", what)
	}
	t.Skipf("missing %s", what)
}

// Run runs name with args in dir under env, bounded by RunContext, with its output in the
// test's log, and fails the test when it exits non-zero.
func Run(t *testing.T, dir string, env []string, name string, args ...string) {
	t.Helper()
	ctx, cancel := RunContext(t)
	defer cancel()
	began := time.Now()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir, cmd.Env = dir, env
	cmd.WaitDelay = 10 * time.Second
	out := &logWriter{t: t}
	cmd.Stdout, cmd.Stderr = out, out
	err := cmd.Run()
	out.flush()
	if ctx.Err() != nil {
		t.Fatalf("%s %s: still running after %v, near the test's deadline", name, strings.Join(args, " "), time.Since(began).Round(time.Second))
	}
	if err != nil {
		t.Fatalf("%s %s in %s: %v", name, strings.Join(args, " "), dir, err)
	}
}

// logWriter passes a child's output to t.Log a line at a time.
type logWriter struct {
	t   testing.TB
	mu  sync.Mutex
	buf []byte
}

func (w *logWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		w.t.Log(string(w.buf[:i]))
		w.buf = w.buf[i+1:]
	}
}

func (w *logWriter) flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.buf) > 0 {
		w.t.Log(string(w.buf))
		w.buf = nil
	}
}
