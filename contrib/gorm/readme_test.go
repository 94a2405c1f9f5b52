package idnodegorm_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/idnode/idnode/test/e2e/e2etest"
	"github.com/idnode/idnode/test/helpers/nodeenv"
	pgserver "github.com/idnode/idnode/test/helpers/postgres"
)

var firstGoBlock = regexp.MustCompile("(?s)```go\n(.*?)```")

// The README's first example runs as written, as a program of its own module that requires
// this one, against a node and a private PostgreSQL: it prints the keys its comment promises.
func TestReadmeExample(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := firstGoBlock.FindSubmatch(readme)
	if m == nil {
		t.Fatal("README.md has no ```go block")
	}
	here, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(here, "..", "..")
	mod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile("go.sum")
	if err != nil {
		t.Fatal(err)
	}
	// This module's go.mod, renamed, requiring this module from here: every module the
	// example needs is in go.sum already, so the build needs no network.
	gomod := strings.Replace(string(mod), "module github.com/idnode/idnode/contrib/gorm", "module readme", 1)
	gomod = strings.Replace(gomod, "=> ../..", "=> "+root, 1) +
		"\nrequire github.com/idnode/idnode/contrib/gorm v0.0.0\n\nreplace github.com/idnode/idnode/contrib/gorm => " + here + "\n"
	dir := t.TempDir()
	for name, body := range map[string][]byte{"main.go": m[1], "go.mod": []byte(gomod), "go.sum": sum} {
		if err := os.WriteFile(filepath.Join(dir, name), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	pg := pgserver.ForTest(t)
	node, _ := e2etest.StartSingle(t)
	ctx, cancel := context.WithTimeout(context.Background(), e2etest.BuildTimeout+time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "run", ".")
	cmd.Dir = dir
	cmd.Env = nodeenv.Clean("GOFLAGS=-mod=mod", "GOPROXY=off", "IDNODE_NODES="+node.GRPCAddr, "DATABASE_URL="+pg.DSN)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go run of the README's example: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if got := lines[len(lines)-1]; got != "orders/1-A 1 2" {
		t.Fatalf("the example printed %q last, want the keys its comment promises, \"orders/1-A 1 2\"\n%s", got, out)
	}
}
