package lossyfs_test

import (
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/idnode/idnode/test/helpers/lossyfs"
)

// step is one thing a program does in a mount: a change or a sync.
type step struct {
	sync bool // an fsync, of a file or a directory
	do   func(t *testing.T, dir string)
}

func change(do func(t *testing.T, dir string)) step { return step{do: do} }

func syncFileStep(name string) step {
	return step{sync: true, do: func(t *testing.T, dir string) { syncPath(t, filepath.Join(dir, name)) }}
}

func syncDirStep(name string) step {
	return step{sync: true, do: func(t *testing.T, dir string) { syncPath(t, filepath.Join(dir, name)) }}
}

func syncPath(t *testing.T, p string) {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
}

func writeStep(name, content string, flag int) step {
	return change(func(t *testing.T, dir string) {
		f, err := os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|flag, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(content); err != nil {
			t.Fatal(err)
		}
	})
}

func must(err error) func(t *testing.T, dir string) {
	return func(t *testing.T, _ string) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
}

// script is a program's life in a mount: every kind of change, some made durable, some not.
var script = []step{
	writeStep("a", "one", os.O_CREATE|os.O_TRUNC),
	syncFileStep("a"),
	syncDirStep("."),
	change(func(t *testing.T, dir string) { must(os.Mkdir(filepath.Join(dir, "d"), 0o755))(t, dir) }),
	writeStep("d/x", "xx", os.O_CREATE),
	syncFileStep("d/x"),
	syncDirStep("d"),
	writeStep("a.tmp", "two", os.O_CREATE|os.O_TRUNC),
	syncFileStep("a.tmp"),
	change(func(t *testing.T, dir string) {
		must(os.Rename(filepath.Join(dir, "a.tmp"), filepath.Join(dir, "a")))(t, dir)
	}),
	syncFileStep("d/x"), // a point at which the rename is still pending
	syncDirStep("."),
	change(func(t *testing.T, dir string) { must(os.Remove(filepath.Join(dir, "d/x")))(t, dir) }),
	writeStep("a", "three", os.O_APPEND),
	change(func(t *testing.T, dir string) { must(os.Truncate(filepath.Join(dir, "a"), 2))(t, dir) }),
	syncDirStep("d"),
	writeStep("a", "four", os.O_APPEND),
}

// tree is every entry under dir: a file's content, "dir/" for a directory.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			out[rel] = "dir/"
			return nil
		}
		b, err := os.ReadFile(p)
		out[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// syncPoints are the indexes of ops that are fsyncs.
func syncPoints(ops []lossyfs.Op) []int {
	var out []int
	for i, op := range ops {
		if op.Kind == lossyfs.OpFsync {
			out = append(out, i)
		}
	}
	return out
}

func record(t *testing.T) (*lossyfs.FS, []lossyfs.Op) {
	t.Helper()
	m := mount(t)
	rec := lossyfs.NewRecorder()
	m.RecordTo(rec, "n")
	for _, s := range script {
		s.do(t, m.Dir)
	}
	ops, err := rec.Ops()
	if err != nil {
		t.Fatal(err)
	}
	return m, ops
}

func TestRecordingHoldsEveryOperationInOrder(t *testing.T) {
	_, ops := record(t)
	var kinds []lossyfs.OpKind
	for i, op := range ops {
		if op.Seq != int64(i+1) || op.Mount != "n" {
			t.Fatalf("op %d is %v: want Seq %d on mount n", i, op, i+1)
		}
		kinds = append(kinds, op.Kind)
	}
	want := []lossyfs.OpKind{
		lossyfs.OpCreate, lossyfs.OpWrite, lossyfs.OpFsync, lossyfs.OpFsync,
		lossyfs.OpMkdir, lossyfs.OpCreate, lossyfs.OpWrite, lossyfs.OpFsync, lossyfs.OpFsync,
		lossyfs.OpCreate, lossyfs.OpWrite, lossyfs.OpFsync, lossyfs.OpRename, lossyfs.OpFsync, lossyfs.OpFsync,
		lossyfs.OpUnlink, lossyfs.OpWrite, lossyfs.OpTruncate, lossyfs.OpFsync, lossyfs.OpWrite,
	}
	if !slices.Equal(kinds, want) {
		t.Fatalf("recorded %v\nwant %v", ops, want)
	}
	if r := ops[12]; r.Path != "a.tmp" || r.To != "a" {
		t.Fatalf("the rename was recorded as %v", r)
	}
	if w := ops[16]; w.Path != "a" || w.Off != 3 || string(w.Data) != "three" {
		t.Fatalf("the append was recorded as %v %q", w, w.Data)
	}
}

// At every fsync point, CrashState leaves what Cut leaves when the program itself stops
// there; two of the states are spelled out, so that the comparison cannot pass with both
// wrong alike.
func TestCrashStateAtEverySyncIsWhatTheCutLeaves(t *testing.T) {
	_, ops := record(t)
	points := syncPoints(ops)
	var syncSteps []int
	for i, s := range script {
		if s.sync {
			syncSteps = append(syncSteps, i)
		}
	}
	if len(points) != len(syncSteps) {
		t.Fatalf("%d fsyncs recorded, the script makes %d", len(points), len(syncSteps))
	}
	spelled := map[int]map[string]string{
		// The rename of a.tmp over a is pending: a is still "one", a.tmp gone with its entry;
		// d, its mkdir not yet synced into the root, is gone with d/x.
		5: {"a": "one"},
		// The unlink of d/x is durable; the append to a and the truncation are not.
		7: {"a": "two", "d": "dir/"},
	}
	for k, i := range points {
		m := mount(t)
		for _, s := range script[:syncSteps[k]+1] {
			s.do(t, m.Dir)
		}
		cut(t, m, lossyfs.Clean)
		want := tree(t, m.Dir)

		dir := filepath.Join(t.TempDir(), "state")
		rep, err := lossyfs.CrashState(dir, ops[:i+1], lossyfs.Clean)
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Errors) > 0 {
			t.Fatalf("state %d: the cut could not take back %v", k, rep.Errors)
		}
		got := tree(t, dir)
		if !maps.Equal(got, want) {
			t.Fatalf("after fsync %d (%v): crash state %v, the cut left %v", k, ops[i], got, want)
		}
		if s, ok := spelled[k]; ok && !maps.Equal(got, s) {
			t.Fatalf("after fsync %d (%v): crash state %v, want %v", k, ops[i], got, s)
		}
	}
}

// Replay keeps everything, as the mount had it before any cut.
func TestReplayKeepsEveryChange(t *testing.T) {
	m, ops := record(t)
	dir := filepath.Join(t.TempDir(), "state")
	if err := lossyfs.Replay(dir, ops); err != nil {
		t.Fatal(err)
	}
	if got, want := tree(t, dir), tree(t, m.Dir); !maps.Equal(got, want) {
		t.Fatalf("replayed %v, the mount holds %v", got, want)
	}
}

// A write through a file that has no name left cannot be replayed; the recording says so
// rather than replaying it somewhere else.
func TestRecordingRefusesAWriteToAnUnlinkedFile(t *testing.T) {
	m := mount(t)
	rec := lossyfs.NewRecorder()
	m.RecordTo(rec, "n")
	p := filepath.Join(m.Dir, "orphan")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("lost"); err != nil {
		t.Fatal(err)
	}
	if _, err := rec.Ops(); err == nil || !errors.Is(err, lossyfs.ErrNotReplayable) {
		t.Fatalf("the recording of a write to an unlinked file: %v, want ErrNotReplayable", err)
	}
}
