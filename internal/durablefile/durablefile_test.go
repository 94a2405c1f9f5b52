package durablefile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWriteFileReplacesContentAndLeavesNoTemp(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state")
	for _, content := range []string{"first", "second, longer", "3"} {
		if err := WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != content {
			t.Fatalf("read %q, %v; want %q", got, err, content)
		}
	}
	if _, err := os.Stat(path + ".tmp"); !os.IsNotExist(err) {
		t.Fatalf("temp file left behind: %v", err)
	}
}

func TestWriteFileFailsInAMissingDirectory(t *testing.T) {
	if err := WriteFile(filepath.Join(t.TempDir(), "missing", "state"), []byte("x"), 0o600); err == nil {
		t.Fatal("write into a missing directory succeeded")
	}
}

func TestMkdirAllMakesEveryMissingDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b", "c")
	for range 2 { // the second time, everything is there already
		if err := MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			t.Fatalf("stat %s: %v, %v", dir, st, err)
		}
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := MkdirAll(filepath.Join(file, "sub"), 0o700); err == nil {
		t.Fatal("MkdirAll under a file succeeded")
	}
}
