package lossyfs_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/idnode/idnode/internal/durablefile"
	"github.com/idnode/idnode/test/helpers/lossyfs"
)

func mount(t *testing.T) *lossyfs.FS {
	t.Helper()
	lossyfs.Need(t)
	return lossyfs.Mount(t)
}

func write(t *testing.T, path, content string, syncFile bool) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(content); err != nil {
		t.Fatal(err)
	}
	if syncFile {
		if err := f.Sync(); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func syncDir(t *testing.T, dir string) {
	t.Helper()
	d, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		t.Fatal(err)
	}
}

func cut(t *testing.T, fs *lossyfs.FS, mode lossyfs.CutMode) lossyfs.Report {
	t.Helper()
	rep, err := fs.Cut(mode)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("cut (%v): %v", mode, rep)
	if len(rep.Errors) > 0 {
		t.Fatalf("the cut could not take everything back: %v", rep.Errors)
	}
	return rep
}

func content(t *testing.T, path string) (string, bool) {
	t.Helper()
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return "", false
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b), true
}

func wantContent(t *testing.T, path, want string) {
	t.Helper()
	got, ok := content(t, path)
	if !ok || got != want {
		t.Fatalf("%s after the cut: %q (exists %v), want %q", filepath.Base(path), clip(got), ok, clip(want))
	}
}

// clip keeps a failure message short.
func clip(s string) string {
	if len(s) > 40 {
		return fmt.Sprintf("%s… (%d bytes)", s[:40], len(s))
	}
	return s
}

func wantGone(t *testing.T, path string) {
	t.Helper()
	if got, ok := content(t, path); ok {
		t.Fatalf("%s survived the cut with %q; its entry was never synced", filepath.Base(path), got)
	}
}

func wantOps(t *testing.T, rep lossyfs.Report, path string, ops ...string) {
	t.Helper()
	l, ok := rep.File(path)
	if !ok || !slices.Equal(l.Ops, ops) {
		t.Fatalf("the report says of %s: %+v (listed %v), want ops %q", path, l, ok, ops)
	}
}

func TestWriteWithoutSyncIsLost(t *testing.T) {
	fs := mount(t)
	p := filepath.Join(fs.Dir, "log")
	write(t, p, "synced", true)
	syncDir(t, fs.Dir)
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(", then not"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	rep := cut(t, fs, lossyfs.Clean)
	wantContent(t, p, "synced")
	if l, _ := rep.File("log"); l.Bytes != int64(len(", then not")) || rep.Ops() != 0 {
		t.Fatalf("report %v: want %d bytes of log dropped and no operation", rep, len(", then not"))
	}
}

func TestOverwriteWithoutSyncIsPutBack(t *testing.T) {
	fs := mount(t)
	p := filepath.Join(fs.Dir, "db")
	write(t, p, strings.Repeat("a", 10000), true)
	syncDir(t, fs.Dir)
	f, err := os.OpenFile(p, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, off := range []int64{100, 5000, 150} {
		if _, err := f.WriteAt([]byte(strings.Repeat("b", 200)), off); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	rep := cut(t, fs, lossyfs.Clean)
	wantContent(t, p, strings.Repeat("a", 10000))
	if rep.Bytes() != 600 {
		t.Fatalf("report %v: want 600 bytes dropped", rep)
	}
}

func TestSyncedFileWithoutDirectorySyncLosesItsEntry(t *testing.T) {
	fs := mount(t)
	p := filepath.Join(fs.Dir, "new")
	write(t, p, "data synced, entry not", true)
	rep := cut(t, fs, lossyfs.Clean)
	wantGone(t, p)
	wantOps(t, rep, "new", "create")

	write(t, p, "both synced", true)
	syncDir(t, fs.Dir)
	rep = cut(t, fs, lossyfs.Clean)
	wantContent(t, p, "both synced")
	if len(rep.Files) != 0 {
		t.Fatalf("nothing was pending, yet the cut reports %v", rep)
	}
}

func TestRenameWithoutDirectorySyncIsUndone(t *testing.T) {
	fs := mount(t)
	p := filepath.Join(fs.Dir, "state")
	write(t, p, "old", true)
	syncDir(t, fs.Dir)
	write(t, p+".tmp", "new", true)
	if err := os.Rename(p+".tmp", p); err != nil {
		t.Fatal(err)
	}
	wantContent(t, p, "new")
	rep := cut(t, fs, lossyfs.Clean)
	wantContent(t, p, "old")
	wantGone(t, p+".tmp")
	wantOps(t, rep, "state", "rename from state.tmp")
	wantOps(t, rep, "state.tmp", "create")

	// With the directory synced after the rename, the new content stays.
	if err := durablefile.WriteFile(p, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	cut(t, fs, lossyfs.Clean)
	wantContent(t, p, "new")
}

func TestUnlinkAndTruncateWithoutSyncAreUndone(t *testing.T) {
	fs := mount(t)
	gone, short := filepath.Join(fs.Dir, "gone"), filepath.Join(fs.Dir, "short")
	write(t, gone, "kept", true)
	write(t, short, "0123456789", true)
	syncDir(t, fs.Dir)
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(short, 3); err != nil {
		t.Fatal(err)
	}
	rep := cut(t, fs, lossyfs.Clean)
	wantContent(t, gone, "kept")
	wantContent(t, short, "0123456789")
	wantOps(t, rep, "gone", "unlink")
	wantOps(t, rep, "short", "truncate at 3")

	// Synced, both stay.
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(short, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(3); err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	syncDir(t, fs.Dir)
	cut(t, fs, lossyfs.Clean)
	wantGone(t, gone)
	wantContent(t, short, "012")
}

func TestDirectoryWithoutParentSyncLosesItsTree(t *testing.T) {
	fs := mount(t)
	dir := filepath.Join(fs.Dir, "raft")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "log"), "entries", true)
	syncDir(t, dir)
	rep := cut(t, fs, lossyfs.Clean)
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("raft/ survived the cut (%v); its parent was never synced", err)
	}
	wantOps(t, rep, "raft", "mkdir")
}

func TestTornWriteKeepsUpToAPageBoundary(t *testing.T) {
	fs := mount(t)
	p := filepath.Join(fs.Dir, "segment")
	write(t, p, "", true)
	syncDir(t, fs.Dir)
	f, err := os.OpenFile(p, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	first, second := bytes.Repeat([]byte{1}, 100), bytes.Repeat([]byte{2}, 10000)
	if _, err := f.Write(first); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(second); err != nil {
		t.Fatal(err)
	}
	f.Close()
	rep := cut(t, fs, lossyfs.Torn)
	got, _ := content(t, p)
	want := string(append(first, second[:8192-100]...))
	if got != want {
		t.Fatalf("torn: %d bytes kept, want the first %d (up to the last page boundary the writes cross)", len(got), len(want))
	}
	if rep.Bytes() != int64(len(first)+len(second)-8192) {
		t.Fatalf("report %v: want %d bytes dropped", rep, len(first)+len(second)-8192)
	}
}

func TestCutOnSyncFreezesAtTheChosenSync(t *testing.T) {
	fs := mount(t)
	p := filepath.Join(fs.Dir, "manifest.json")
	write(t, p, "v1", true)
	syncDir(t, fs.Dir)
	fired := make(chan string, 1)
	fs.CutOnSync(func(path string) bool { return path == "manifest.json" }, func(path string) { fired <- path })
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString("v2"); err != nil {
		t.Fatal(err)
	}
	synced := make(chan error, 1)
	go func() { synced <- f.Sync() }()
	select {
	case path := <-fired:
		if path != "manifest.json" {
			t.Fatalf("fired for %q", path)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the sync of manifest.json did not fire the hook")
	}
	select {
	case err := <-synced:
		t.Fatalf("the sync returned (%v) before the cut; it must wait for it", err)
	default:
	}
	// The frozen sync is answered with EIO by the cut; a real power cut answers nothing.
	cutDone := make(chan error, 1)
	go func() { _, err := fs.Cut(lossyfs.Clean); cutDone <- err }()
	t.Cleanup(func() {
		if err := <-cutDone; err != nil {
			t.Error(err)
		}
	})
	select {
	case err := <-synced:
		if !errors.Is(err, syscall.EIO) {
			t.Fatalf("the frozen sync returned %v, want EIO", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the frozen sync was not released by the cut")
	}
}

// A directory made with durablefile.MkdirAll survives the cut with the synced file in it; one
// made with os.MkdirAll does not (the Raft log's directory was once made so).
func TestDurableMkdirAllSurvivesACut(t *testing.T) {
	fs := mount(t)
	for _, c := range []struct {
		dir   string
		mkdir func(string, os.FileMode) error
		kept  bool
	}{{"durable/wal", durablefile.MkdirAll, true}, {"plain/wal", os.MkdirAll, false}} {
		dir := filepath.Join(fs.Dir, c.dir)
		if err := c.mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(dir, "segment"), "entries", true)
		syncDir(t, dir)
	}
	cut(t, fs, lossyfs.Clean)
	wantContent(t, filepath.Join(fs.Dir, "durable/wal/segment"), "entries")
	wantGone(t, filepath.Join(fs.Dir, "plain/wal/segment"))
}
