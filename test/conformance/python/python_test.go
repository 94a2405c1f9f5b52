// Package python_test runs the Python client's whole test command (clients/python: unit tests,
// the conformance suite for the sync and asyncio clients, the chaos test, the install test)
// under go test, so that the README's test command covers it.
package python_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

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
	conformancetest.Run(t, dir, env, py, "-m", "pytest", "-q", "-p", "no:cacheprovider")
}
