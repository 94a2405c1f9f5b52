package server

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/raft"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/idnode/idnode/fsm"
	"github.com/idnode/idnode/internal/datadir"
	"github.com/idnode/idnode/internal/etag"
	"github.com/idnode/idnode/internal/hilopool"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
	"github.com/idnode/idnode/reason"
	"github.com/idnode/idnode/series"
)

// A write that fails in any store a node keeps answers what docs/recovery.md promises:
// UNAVAILABLE with STORAGE_FULL when the disk is full and STORAGE_FAILED for any other write
// error, so clients move on to another node. The stores are real, on a real file system; the
// write is made to fail where the store replaces its file: the temporary file it writes first
// is a directory (EISDIR) or a link to /dev/full (ENOSPC). The Raft log's StorageError is
// covered by TestRefusalOfEverySentinel and package cluster's tests.
func TestEveryStoreWriteErrorIsAStorageRefusal(t *testing.T) {
	t.Parallel()
	for _, store := range []struct {
		name string
		// write opens the store in dir, calls arm (which makes its next file replacement fail)
		// and makes a change that has to be written.
		write func(t *testing.T, dir string, arm func(path string)) error
	}{
		{"etag watermark", func(t *testing.T, dir string, arm func(string)) error {
			path := filepath.Join(dir, string(datadir.Etag))
			c, err := etag.Open(path, 10)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			arm(path)
			_, err = c.Next(1)
			return err
		}},
		{"HiLo pools", func(t *testing.T, dir string, arm func(string)) error {
			path := filepath.Join(dir, string(datadir.HiLoPools))
			s, err := hilopool.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			arm(path)
			return s.Add(hilopool.Key{Database: "default", Tag: "users"}, 1, 100)
		}},
		{"data dir manifest", func(t *testing.T, dir string, arm func(string)) error {
			m, err := datadir.Open(dir, false)
			if err != nil {
				t.Fatal(err)
			}
			arm(filepath.Join(dir, datadir.FileName))
			return m.Record(datadir.Etag)
		}},
		{"node state", func(t *testing.T, dir string, arm func(string)) error {
			arm(filepath.Join(dir, datadir.NodeFileName))
			return datadir.SaveNodeState(dir, datadir.NewNodeState("a"))
		}},
	} {
		for _, fault := range []struct {
			name   string
			arm    func(t *testing.T, tmp string)
			reason string
		}{
			{"failed", func(t *testing.T, tmp string) { mustDo(t, os.Mkdir(tmp, 0o755)) }, reason.StorageFailed},
			{"full", func(t *testing.T, tmp string) { mustDo(t, os.Symlink(devFull(t), tmp)) }, reason.StorageFull},
		} {
			t.Run(store.name+"/"+fault.name, func(t *testing.T) {
				err := store.write(t, t.TempDir(), func(path string) { fault.arm(t, path+".tmp") })
				if err == nil {
					t.Fatal("the write succeeded on a failing disk")
				}
				wantStorageRefusal(t, err, fault.reason)
			})
		}
	}

	// The series journal (bbolt) fails its writes once its file is closed under it; the FSM
	// halts and answers the command with the journal's error.
	t.Run("series journal/failed", func(t *testing.T) {
		s, err := series.Open(filepath.Join(t.TempDir(), "series.db"))
		if err != nil {
			t.Fatal(err)
		}
		f := fsm.New()
		f.UseSeries(s)
		f.OnHalt(func(fsm.Halt) {})
		apply := func(index uint64, typ fsm.CommandType, m proto.Message) any {
			data, err := fsm.Encode(typ, m)
			if err != nil {
				t.Fatal(err)
			}
			return f.Apply(&raft.Log{Index: index, Type: raft.LogCommand, Data: data})
		}
		if out, ok := apply(1, fsm.CreateSeriesCommand, &raftv1.CreateSeries{Name: "INV", Format: "INV-{n}", ProposedAtMs: 1}).(error); ok {
			t.Fatal(out)
		}
		// Series commits what was applied so far; the next issue begins a new transaction.
		flushed, err := f.Series()
		mustDo(t, err)
		mustDo(t, flushed.Close())
		out := apply(2, fsm.SeriesIssueBatchCommand, &raftv1.SeriesIssueBatch{
			Issues: []*raftv1.SeriesIssue{{Series: "INV", RequestId: "r"}}, ProposedAtMs: 1})
		err, ok := out.(error)
		if !ok {
			t.Fatalf("an issue into a closed journal answered %v", out)
		}
		wantStorageRefusal(t, err, reason.StorageFailed)
	})
}

func wantStorageRefusal(t *testing.T, err error, want string) {
	t.Helper()
	st := toStatus(err)
	if status.Code(st) != codes.Unavailable || reason.Of(st) != want {
		t.Errorf("%v\nanswers %v %q, want UNAVAILABLE %q", err, status.Code(st), reason.Of(st), want)
	}
}

// devFull is /dev/full, whose writes fail with ENOSPC as a full disk's do.
func devFull(t *testing.T) string {
	t.Helper()
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skipf("no /dev/full to stand for a full disk: %v", err)
	}
	return "/dev/full"
}

func mustDo(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
