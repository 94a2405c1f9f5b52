// Package readmeexample runs the first Go example of a module's README as written: as the
// main package of a module of its own that requires the README's module from the tree, built
// offline (every module it needs must be in that module's go.sum already).
//
// Only tests import it, so it lives in test/helpers with the other test helpers.
package readmeexample

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/idnode/idnode/test/helpers/nodeenv"
)

// RunTimeout bounds building and running the example (a cold build cache takes minutes).
const RunTimeout = 5 * time.Minute

var firstGoBlock = regexp.MustCompile("(?s)```go\n(.*?)```")

// Run extracts the first ```go block of README.md in the test's working directory (a module
// inside this repository whose go.mod replaces the idnode module with a relative path), runs
// it with env added to the environment, and returns what it printed. It fails t when the block
// is missing or the program fails.
func Run(t testing.TB, env ...string) string {
	t.Helper()
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
	mod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile("go.sum")
	if err != nil {
		t.Fatal(err)
	}
	name, _, ok := strings.Cut(strings.TrimPrefix(string(mod), "module "), "\n")
	if !ok || !strings.HasPrefix(string(mod), "module ") {
		t.Fatal("go.mod does not start with its module line")
	}
	// The module's own go.mod, renamed, with its relative replacements made absolute, and
	// requiring the module itself from here.
	gomod := strings.Replace(string(mod), "module "+name, "module readme", 1)
	gomod = regexp.MustCompile(`=> (\.\.?/[^\s]*)`).ReplaceAllStringFunc(gomod, func(r string) string {
		return "=> " + filepath.Join(here, strings.TrimPrefix(r, "=> "))
	})
	gomod += "\nrequire " + name + " v0.0.0\n\nreplace " + name + " => " + here + "\n"
	dir := t.TempDir()
	for file, body := range map[string][]byte{"main.go": m[1], "go.mod": []byte(gomod), "go.sum": sum} {
		if err := os.WriteFile(filepath.Join(dir, file), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), RunTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "run", ".")
	cmd.Dir = dir
	// The run's own flags stay: with CI's -trimpath the build finds the packages the tests
	// compiled in the build cache (without it a cold machine compiled them all again, past
	// RunTimeout).
	cmd.Env = nodeenv.Clean(append([]string{"GOFLAGS=" + os.Getenv("GOFLAGS") + " -mod=mod", "GOPROXY=off"}, env...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go run of README.md's first example: %v\n%s", err, out)
	}
	return string(out)
}

// LastLine is the last non-empty line of out.
func LastLine(out string) string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	return lines[len(lines)-1]
}
