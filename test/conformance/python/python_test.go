// Package python_test runs the Python client's whole test command (clients/python: unit tests,
// the conformance suite for the sync and asyncio clients, the chaos test, the install test)
// under go test, so that the README's test command covers it.
package python_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idnode/idnode/test/conformance/conformancetest"
)

// python is Debian's interpreter, the one that sees python3-grpcio and python3-protobuf (a
// python3 earlier on PATH, say pyenv's, may not); IDNODE_PYTHON names another.
func python() string {
	if p := os.Getenv("IDNODE_PYTHON"); p != "" {
		return p
	}
	return "/usr/bin/python3"
}

func TestPythonClient(t *testing.T) {
	py := python()
	_, err := exec.LookPath(py)
	conformancetest.Need(t, py+" (Debian: apt-get install python3)", err == nil)
	// The client's dependencies, the test runner, what the install test builds the wheel and
	// the sdist with and installs them into, the type checker, and the ORMs (with PostgreSQL's
	// driver) the adapters' tests run.
	probe := exec.Command(py, "-c", "import grpc, google.protobuf, pytest, ensurepip, setuptools, wheel, build, mypy, sqlalchemy, django, psycopg2")
	conformancetest.Need(t, "python3-grpcio python3-protobuf python3-pytest python3-venv python3-setuptools python3-wheel python3-build python3-mypy python3-sqlalchemy python3-django python3-psycopg2 (apt)", probe.Run() == nil)
	env := conformancetest.Env(t)
	dir := filepath.Join(conformancetest.RepoRoot(t), "clients", "python")
	groups := pytestGroups(t, dir)
	runs := make([]pytestRun, len(groups))
	ctx, cancel := conformancetest.RunContext(t)
	defer cancel()
	var wg sync.WaitGroup
	for i, g := range groups {
		args := append([]string{"-m", "pytest", "-q", "-p", "no:cacheprovider", "--basetemp", t.TempDir()}, g.args...)
		wg.Go(func() { runs[i] = runPytest(ctx, dir, env, py, args) })
	}
	wg.Wait()
	for i, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			t.Log(string(runs[i].out))
			t.Logf("pytest %s: %v", strings.Join(g.args, " "), runs[i].took.Round(100*time.Millisecond))
			if runs[i].timedOut {
				t.Fatalf("%s %s: still running after %v, near the test's deadline", py, strings.Join(runs[i].args, " "), runs[i].took.Round(time.Second))
			}
			if runs[i].err != nil {
				t.Fatalf("%s %s in %s: %v", py, strings.Join(runs[i].args, " "), dir, runs[i].err)
			}
		})
	}
}

// pytestRun is one pytest process that ended: its arguments, its output, how it ended and
// how long it took.
type pytestRun struct {
	args     []string
	out      []byte
	err      error
	timedOut bool
	took     time.Duration
}

// runPytest runs py with args in dir under env, bounded by ctx (conformancetest.RunContext).
// The groups run in goroutines of the test rather than as parallel subtests, as go test runs
// no more parallel subtests at once than the machine has cores (-parallel), and these wait.
func runPytest(ctx context.Context, dir string, env []string, py string, args []string) pytestRun {
	cmd := exec.CommandContext(ctx, py, args...)
	cmd.Dir, cmd.Env = dir, env
	cmd.WaitDelay = 10 * time.Second
	began := time.Now()
	out, err := cmd.CombinedOutput()
	return pytestRun{args: args, out: out, err: err, timedOut: ctx.Err() != nil, took: time.Since(began)}
}

// A pytest process spends most of its time waiting on the nodes it starts and on PostgreSQL
// (pytest and the nodes it started used 12% of a core over a run of 260 s), so the test files
// run as four processes at once, each with its own idcluster and PostgreSQL: the conformance
// scenarios for the sync client and for the asyncio one (together they took 114 s, the
// longest group), the ORM adapters and the install test (the ones that use PostgreSQL), and
// every other file.
// Timings: docs/suite-times.md#the-python-clients-tests.
var (
	conformanceFiles = []string{"tests/test_conformance.py"}
	postgresFiles    = []string{"tests/test_contrib_django.py", "tests/test_contrib_sqlalchemy.py", "tests/test_install.py", "tests/test_ormapp.py"}
)

// pytestGroup is one pytest process: its name and the arguments that pick its tests.
type pytestGroup struct {
	name string
	args []string
}

// pytestGroups splits the test files of the client in dir into the groups above; "rest" is
// every test file the others do not name, so a new file runs without being listed here.
func pytestGroups(t *testing.T, dir string) []pytestGroup {
	t.Helper()
	named := slices.Concat(conformanceFiles, postgresFiles)
	rest := []string{}
	for _, f := range named {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Fatalf("the test file a pytest group names is gone (edit the groups in this file): %v", err)
		}
		rest = append(rest, "--ignore", f)
	}
	return []pytestGroup{
		{"conformance-sync", append(slices.Clone(conformanceFiles), "-k", "not asyncio")},
		{"conformance-asyncio", append(slices.Clone(conformanceFiles), "-k", "asyncio")},
		{"postgres", postgresFiles},
		{"rest", rest},
	}
}
