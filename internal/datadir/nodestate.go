package datadir

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/google/uuid"

	"github.com/idnode/idnode/docid"
	"github.com/idnode/idnode/internal/durablefile"
)

// NodeFileName is the node state file inside a node's data dir.
const NodeFileName = "node.json"

// NodeState is this node's identity, kept in node.json: what a node must remember about
// itself across restarts, its tag, the incarnation of its data dir, and whether the cluster
// has accepted it under that tag.
//
// The incarnation is what stops a node that lost its data dir from coming back under its old
// tag: its etag counter would restart at 1 and repeat server-side IDs it issued before. The
// FSM records each tag's incarnation and refuses a different one.
type NodeState struct {
	Tag         string `json:"tag"`
	Incarnation string `json:"incarnation"`
	// RaftID is the node's Raft server ID (docid.MemberID). Data dirs made before IDs carried the
	// incarnation have none: their ID is the tag.
	RaftID string `json:"raft_id,omitempty"`
	// Registered is set once the cluster's registry holds this tag with this incarnation. Until
	// then the node must not issue server-side IDs; after it, it may even when cut off.
	Registered bool `json:"registered"`
	// Separator is the cluster's identity parts separator, remembered once the cluster
	// accepted this node with it: a restart with another --separator is refused at once.
	Separator string `json:"separator,omitempty"`
	// KeepsManifest is set once the data dir's manifest (Manifest) was written, so
	// that losing it is noticed too.
	KeepsManifest bool `json:"keeps_manifest,omitempty"`
}

// LoadNodeState reads the node state in dataDir. A missing file is not an error: found is
// false.
func LoadNodeState(dataDir string) (st NodeState, found bool, err error) {
	path := filepath.Join(dataDir, NodeFileName)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return NodeState{}, false, nil
	}
	if err != nil {
		return NodeState{}, false, fmt.Errorf("read node state %s: %w", path, err)
	}
	if err := json.Unmarshal(data, &st); err != nil || st.Tag == "" || st.Incarnation == "" {
		return NodeState{}, false, fmt.Errorf("node state %s is corrupt (%v): restore it from a backup, or remove this node from the cluster and join it again with an empty data dir", path, err)
	}
	return st, true, nil
}

// NewNodeState returns the state of a node starting on an empty data dir. A node that joins without a
// tag learns its tag, and so its Raft ID, from the cluster.
func NewNodeState(tag string) NodeState {
	st := NodeState{Tag: tag, Incarnation: uuid.NewString()}
	if tag != "" {
		st.RaftID = docid.MemberID(tag, st.Incarnation)
	}
	return st
}

// MemberID is the node's Raft server ID.
func (s NodeState) MemberID() string {
	return cmp.Or(s.RaftID, s.Tag)
}

// SaveNodeState makes st the durable node state in dataDir.
func SaveNodeState(dataDir string, st NodeState) error {
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	if err := durablefile.WriteFile(filepath.Join(dataDir, NodeFileName), append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("save node state in %s: %w", dataDir, err)
	}
	return nil
}
