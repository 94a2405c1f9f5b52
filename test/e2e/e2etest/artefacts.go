package e2etest

import (
	"os"
	"path/filepath"
	"testing"
)

// Artefacts is where the tests write what a person looks at after a run (screenshots of
// pages): $IDNODE_ARTEFACTS, else test/e2e/artefacts in the checkout (ignored by git).
func Artefacts(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("IDNODE_ARTEFACTS")
	if dir == "" {
		root, err := RepoRoot()
		if err != nil {
			t.Fatal(err)
		}
		dir = filepath.Join(root, "test", "e2e", "artefacts")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}
