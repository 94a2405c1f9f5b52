package prebuilt

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

func TestAProgramComesFromTheFolderWhenItHoldsIt(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(Env, dir)
	p := Program{Name: "tool", Pkg: "./no/such/package"}
	if _, ok := p.Prebuilt(); ok {
		t.Fatal("Prebuilt found a program the folder does not hold")
	}
	if err := os.WriteFile(filepath.Join(dir, "tool"), []byte("the program"), 0o755); err != nil {
		t.Fatal(err)
	}
	// The package does not exist: a build would fail, so these answers are the folder's.
	path, err := p.Path(context.Background(), ".")
	if err != nil || path != filepath.Join(dir, "tool") {
		t.Fatalf("Path = %s, %v; want the folder's file", path, err)
	}
	out := filepath.Join(t.TempDir(), "context", "tool")
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := p.Place(context.Background(), ".", out); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(out); err != nil || string(b) != "the program" {
		t.Fatalf("Place left %q, %v; want a copy of the folder's file", b, err)
	}

	t.Setenv(Env, "")
	if _, err := p.Path(context.Background(), "."); err == nil {
		t.Fatal("without the folder, Path did not try to build the package")
	}
}

func TestAnImageIsBuiltOnlyOnceMarked(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(Env, dir)
	if ImageBuilt(ChaosImage) {
		t.Fatal("an image no one marked is built")
	}
	if err := MarkImage(dir, ChaosImage); err != nil {
		t.Fatal(err)
	}
	if !ImageBuilt(ChaosImage) || ImageBuilt("idnode:other") {
		t.Fatalf("after marking %s: built %v, idnode:other built %v", ChaosImage, ImageBuilt(ChaosImage), ImageBuilt("idnode:other"))
	}
}

// Without a folder built ahead, the test packages of a run share one build of a program: the
// first builds it, and the next finds the same file current, which go build does not link
// again (a link puts a new file there).
func TestTestPackagesShareOneBuildOfAProgram(t *testing.T) {
	t.Setenv(Env, "")
	cache := t.TempDir()
	userCacheDir = func() (string, error) { return cache, nil }
	t.Cleanup(func() { userCacheDir = os.UserCacheDir })
	root := t.TempDir()
	for name, text := range map[string]string{
		"go.mod":  "module example.com/hello\n\ngo 1.22\n",
		"main.go": "package main\n\nfunc main() {}\n",
	} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := Program{Name: "hello", Pkg: "."}
	first, err := p.Path(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	before, err := os.Stat(first)
	if err != nil {
		t.Fatal(err)
	}
	second, err := p.Path(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	after, err := os.Stat(second)
	if err != nil {
		t.Fatal(err)
	}
	if second != first || !os.SameFile(before, after) {
		t.Errorf("second build: %s, a new file; want %s as the first build left it", second, first)
	}
	if other, err := sharedDir(t.TempDir()); err != nil || other == filepath.Dir(first) {
		t.Errorf("another checkout's folder: %s, %v; want one apart from %s", other, err, filepath.Dir(first))
	}
}
