// Package typescript_test runs the TypeScript client's tests (clients/typescript) under go test:
// its build as published and strict type check, its unit tests, the conformance runner, the
// chaos test, the browser test and the test of the packed package, all against real nodes that
// idcluster starts.
package typescript_test

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/idnode/idnode/test/conformance/conformancetest"
)

// nodeMajor is the major version of the node on PATH, 0 when there is none.
func nodeMajor() int {
	out, err := exec.Command("node", "--version").Output()
	if err != nil {
		return 0
	}
	m := regexp.MustCompile(`^v(\d+)\.`).FindSubmatch(out)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}

func TestTypeScriptClient(t *testing.T) {
	_, tscErr := exec.LookPath("tsc")
	conformancetest.Need(t, "tsc (apt-get install node-typescript)", tscErr == nil)
	conformancetest.Need(t, "Node.js 20 or later (apt-get install nodejs)", nodeMajor() >= 20)
	_, npmErr := exec.LookPath("npm")
	conformancetest.Need(t, "npm, which builds, packs and installs the package (apt-get install npm)", npmErr == nil)
	_, chromiumErr := exec.LookPath("chromium")
	conformancetest.Need(t, "chromium for the browser test (apt-get install chromium)", chromiumErr == nil)
	dir := filepath.Join(conformancetest.RepoRoot(t), "clients", "typescript")
	env := conformancetest.Env(t)
	conformancetest.Run(t, dir, env, "npm", "run", "build") // the package as published: dist/ (ES modules) and dist/cjs/, each with its .d.ts
	checkNoAny(t, filepath.Join(dir, "dist"))
	conformancetest.Run(t, dir, env, "tsc", "-p", "tsconfig.test.json")
	conformancetest.Run(t, dir, env, "node", "--test", "--test-concurrency=1", "build/tests/")
}

var (
	prose   = regexp.MustCompile(`(?s)/\*.*?\*/|//[^\n]*|"[^"\n]*"|'[^'\n]*'`) // comments and string literals
	anyType = regexp.MustCompile(`\bany\b`)
)

// checkNoAny fails when a declaration the package publishes names the type any: its public API
// is typed throughout, so a caller never meets an unchecked value. Comments may say "any" in prose, and a string literal type
// may be "any".
func checkNoAny(t *testing.T, dist string) {
	t.Helper()
	found := 0
	err := filepath.WalkDir(dist, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".ts" {
			return err
		}
		found++
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if loc := anyType.FindIndex(prose.ReplaceAll(b, nil)); loc != nil {
			t.Errorf("%s declares the type any: the public API must name its types", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found == 0 {
		t.Fatalf("no declarations (.d.ts) in %s: tsc -p . should write them", dist)
	}
}
