// Package datadir keeps a node's record of what its data dir holds, and refuses a data dir
// that has lost a piece it once held.
//
// A node that starts without its Raft log, its snapshots or its etag watermark does not fail:
// it starts as if new, and hands out again the identities, HiLo ranges or server-side IDs it
// handed out before. So the data dir's manifest lists every piece once it exists, and the
// newest Raft index it is known to have held; a start finds each listed piece or
// stops, naming it and the way back.
package datadir

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/idnode/idnode/internal/durablefile"
)

// FileName is the manifest inside a node's data dir.
const FileName = "manifest.json"

// Piece is a part of a data dir, named by its path inside it.
type Piece string

// The pieces a data dir may hold.
const (
	RaftStore Piece = "raft/raft.db"   // the Raft log and stable store (raft-boltdb)
	RaftWAL   Piece = "raft/wal"       // the Raft log and stable store (raft-wal), once its meta file exists
	Snapshots Piece = "raft/snapshots" // the FSM snapshots (at least one, once one was taken)
	Etag      Piece = "etag"           // the etag watermark behind server-side IDs
)

var allPieces = []Piece{RaftStore, RaftWAL, Snapshots, Etag}

// walMetaFile is the file raft-wal creates first in its directory, and last loses: the WAL
// is there when it is.
const walMetaFile = "wal-meta.db"

// HiLoPools is the node's HiLo pools file (package hilopool). It is no piece a start requires
// (a lost pool is a gap), but it is a node's state: a data dir without node.json that holds it
// is refused, and Clear removes it.
const HiLoPools Piece = "hilo-pools"

// Errors returned by Open and Check. Each stops the node: none goes away by retrying.
var (
	// ErrPieceMissing means a piece the manifest lists is gone.
	ErrPieceMissing = errors.New("the data dir has lost a piece it held")

	// ErrManifestMissing means node.json says the data dir keeps a manifest, and it is gone.
	ErrManifestMissing = errors.New("the data dir has lost its manifest")

	// ErrOrphanPieces means node.json is gone while other pieces remain: the node would start
	// under a new identity on top of an old one's state.
	ErrOrphanPieces = errors.New("the data dir has Raft, etag or HiLo pool state but no node.json")

	// ErrManifestCorrupt means the manifest cannot be read.
	ErrManifestCorrupt = errors.New("the data dir's manifest is corrupt")
)

// WayBack tells the operator how to recover a node whose data dir is damaged.
const WayBack = "put the piece back from a copy of this data dir taken after it was last written, " +
	"or remove this node from the cluster (idctl node remove TAG) and start it as a new member with an empty data dir (idnode --join ADDRESS); " +
	"a single-node cluster starts anew from its latest backup (idctl restore) with a new tag"

type record struct {
	Holds []Piece `json:"holds"`
	// LogIndex is the newest Raft index the data dir is known to have held (recorded at
	// each snapshot, while the node runs (FollowHighWater) and on clean shutdown); its log
	// must reach at least this far.
	LogIndex uint64 `json:"log_index"`
}

// Manifest is a data dir's manifest. Its methods may be called from any goroutine.
type Manifest struct {
	dir   string
	mu    sync.Mutex
	rec   record
	saved bool // the file exists
}

// Open reads the manifest of dataDir. keeps says node.json knows the data dir keeps one, so a
// missing manifest is a lost piece; otherwise (a new data dir, or one made before manifests)
// the manifest starts from the pieces present now and is written by the first Record.
func Open(dataDir string, keeps bool) (*Manifest, error) {
	m := &Manifest{dir: dataDir}
	path := filepath.Join(dataDir, FileName)
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) && keeps:
		return nil, fmt.Errorf("%w: %s is missing, so nothing tells which pieces of the data dir must be there: %s", ErrManifestMissing, path, WayBack)
	case errors.Is(err, fs.ErrNotExist):
		for _, p := range allPieces {
			if present(dataDir, p) {
				m.rec.Holds = append(m.rec.Holds, p)
			}
		}
		return m, nil
	case err != nil:
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if err := json.Unmarshal(data, &m.rec); err != nil {
		return nil, fmt.Errorf("%w: %s: %v: %s", ErrManifestCorrupt, path, err, WayBack)
	}
	m.saved = true
	return m, nil
}

// CheckOrphans refuses a data dir without node.json that still holds other pieces.
func CheckOrphans(dataDir string) error {
	var found []string
	for _, p := range append([]Piece{FileName, HiLoPools}, allPieces...) {
		if present(dataDir, p) {
			found = append(found, string(p))
		}
	}
	if len(found) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s holds %v but its node.json, the node's identity, is missing: %s", ErrOrphanPieces, dataDir, found, WayBack)
}

// Clear removes every piece and record of a node from dataDir, making it a new node's again:
// for a node that never became a member, or was removed again after its join failed.
func Clear(dataDir string) error {
	var errs []error
	for _, name := range []string{NodeFileName, FileName, "raft", string(Etag), string(Etag) + ".lock", string(HiLoPools)} {
		errs = append(errs, os.RemoveAll(filepath.Join(dataDir, name)))
	}
	return errors.Join(errs...)
}

// Check refuses a data dir that lacks a piece its manifest lists.
func (m *Manifest) Check() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, p := range m.rec.Holds {
		if !present(m.dir, p) {
			return fmt.Errorf("%w: %s is missing from %s: starting without it could hand out IDs twice; %s",
				ErrPieceMissing, p, m.dir, WayBack)
		}
	}
	return nil
}

// Holds reports whether the manifest lists p.
func (m *Manifest) Holds(p Piece) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Contains(m.rec.Holds, p)
}

// LogIndex is the newest Raft index the data dir is known to have held.
func (m *Manifest) LogIndex() uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.rec.LogIndex
}

// Record lists p as held, durably. The first Record also writes a new manifest.
func (m *Manifest) Record(p Piece) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.add(p) && m.saved {
		return nil
	}
	return m.save()
}

// Reached raises the recorded log index to index, durably.
func (m *Manifest) Reached(index uint64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if index <= m.rec.LogIndex {
		return nil
	}
	m.rec.LogIndex = index
	return m.save()
}

// Snapshotted records a snapshot of the FSM at index: snapshots are held from now on, and
// the data dir held at least index.
func (m *Manifest) Snapshotted(index uint64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.add(Snapshots) && index <= m.rec.LogIndex {
		return nil
	}
	m.rec.LogIndex = max(m.rec.LogIndex, index)
	return m.save()
}

// add lists p, reporting whether it was new.
func (m *Manifest) add(p Piece) bool {
	if slices.Contains(m.rec.Holds, p) {
		return false
	}
	m.rec.Holds = append(m.rec.Holds, p)
	slices.Sort(m.rec.Holds)
	return true
}

func (m *Manifest) save() error {
	data, err := json.MarshalIndent(m.rec, "", "  ")
	if err != nil {
		return err
	}
	if err := durablefile.WriteFile(filepath.Join(m.dir, FileName), append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("save the data dir manifest in %s: %w", m.dir, err)
	}
	m.saved = true
	return nil
}

// present reports whether piece p is in dataDir. Snapshots count once one complete snapshot
// (its meta.json) is there, the WAL once its meta file is.
func present(dataDir string, p Piece) bool {
	path := filepath.Join(dataDir, string(p))
	switch p {
	case RaftWAL:
		_, err := os.Stat(filepath.Join(path, walMetaFile))
		return err == nil
	case Snapshots:
	default:
		_, err := os.Stat(path)
		return err == nil
	}
	metas, _ := filepath.Glob(filepath.Join(path, "*", "meta.json"))
	return len(metas) > 0
}
