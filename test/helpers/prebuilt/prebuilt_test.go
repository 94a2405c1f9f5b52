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
	path, err := p.Path(context.Background(), ".", t.TempDir())
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
	if _, err := p.Path(context.Background(), ".", t.TempDir()); err == nil {
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
