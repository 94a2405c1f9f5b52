package datadir

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func mustWrite(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestManifestRefusesALostPiece(t *testing.T) {
	dir := t.TempDir()
	m, err := Open(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(dir, "raft", "raft.db"))
	mustWrite(t, filepath.Join(dir, "etag"))
	mustWrite(t, filepath.Join(dir, "raft", "snapshots", "1-10-123", "meta.json"))
	for _, p := range []Piece{RaftStore, Etag} {
		if err := m.Record(p); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Snapshotted(10); err != nil {
		t.Fatal(err)
	}
	if err := m.Reached(7); err != nil { // lower than the snapshot: no change
		t.Fatal(err)
	}

	for _, lost := range []string{"etag", "raft/raft.db", "raft/snapshots/1-10-123"} {
		again, err := Open(dir, true)
		if err != nil {
			t.Fatal(err)
		}
		if again.LogIndex() != 10 || !again.Holds(Snapshots) {
			t.Fatalf("reopened manifest: log index %d, holds snapshots %v; want 10, true", again.LogIndex(), again.Holds(Snapshots))
		}
		if err := again.Check(); err != nil {
			t.Fatalf("intact data dir refused: %v", err)
		}
		path := filepath.Join(dir, lost)
		data, _ := os.ReadFile(path)
		if err := os.RemoveAll(path); err != nil {
			t.Fatal(err)
		}
		if err := again.Check(); !errors.Is(err, ErrPieceMissing) {
			t.Errorf("without %s: Check = %v, want ErrPieceMissing", lost, err)
		}
		if lost == "raft/snapshots/1-10-123" {
			mustWrite(t, filepath.Join(path, "meta.json"))
		} else if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}

	if err := os.Remove(filepath.Join(dir, FileName)); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir, true); !errors.Is(err, ErrManifestMissing) {
		t.Errorf("manifest deleted: Open = %v, want ErrManifestMissing", err)
	}
}

// A data dir made before manifests starts its manifest from what is there.
func TestManifestAdoptsPiecesPresent(t *testing.T) {
	dir := t.TempDir()
	mustWrite(t, filepath.Join(dir, "raft", "raft.db"))
	m, err := Open(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	if !m.Holds(RaftStore) || m.Holds(Etag) || m.Holds(Snapshots) {
		t.Fatalf("adopted raft.db only? holds raft %v etag %v snapshots %v", m.Holds(RaftStore), m.Holds(Etag), m.Holds(Snapshots))
	}
	if _, err := os.Stat(filepath.Join(dir, FileName)); !os.IsNotExist(err) {
		t.Errorf("Open wrote the manifest before anything was recorded: %v", err)
	}
}

// A WAL counts as held once its meta file is there: an empty wal/ left by a start that failed
// before it holds nothing to lose, and a wal/ without its meta file has lost the WAL.
func TestManifestAdoptsAWALByItsMetaFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, string(RaftWAL)), 0o700); err != nil {
		t.Fatal(err)
	}
	if m, err := Open(dir, false); err != nil || m.Holds(RaftWAL) {
		t.Fatalf("an empty wal/ adopted: %v, %v", m != nil && m.Holds(RaftWAL), err)
	}
	meta := filepath.Join(dir, string(RaftWAL), walMetaFile)
	mustWrite(t, meta)
	m, err := Open(dir, false)
	if err != nil || !m.Holds(RaftWAL) || m.Holds(RaftStore) {
		t.Fatalf("a WAL adopted? holds wal %v raft.db %v: %v", m.Holds(RaftWAL), m.Holds(RaftStore), err)
	}
	if err := m.Record(RaftWAL); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(meta); err != nil {
		t.Fatal(err)
	}
	if err := m.Check(); !errors.Is(err, ErrPieceMissing) {
		t.Fatalf("wal/ without its meta file: Check = %v, want ErrPieceMissing", err)
	}
}

func TestCheckOrphans(t *testing.T) {
	dir := t.TempDir()
	if err := CheckOrphans(dir); err != nil {
		t.Fatalf("empty dir: %v", err)
	}
	mustWrite(t, filepath.Join(dir, "etag"))
	if err := CheckOrphans(dir); !errors.Is(err, ErrOrphanPieces) {
		t.Errorf("etag without node.json: %v, want ErrOrphanPieces", err)
	}
}

// A leftover hilo-pools file is a node's state like the others: without node.json it is
// refused, and Clear removes it.
func TestLeftoverHiLoPools(t *testing.T) {
	dir := t.TempDir()
	mustWrite(t, filepath.Join(dir, string(HiLoPools)))
	if err := CheckOrphans(dir); !errors.Is(err, ErrOrphanPieces) {
		t.Errorf("hilo-pools without node.json: %v, want ErrOrphanPieces", err)
	}
	if err := Clear(dir); err != nil {
		t.Fatal(err)
	}
	if err := CheckOrphans(dir); err != nil {
		t.Errorf("after Clear: %v", err)
	}
}
