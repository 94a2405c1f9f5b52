package sim

import (
	"sync"
	"time"

	"github.com/hashicorp/raft"
)

// slowDisk is how long each write to one node's disk takes while a slow-disk fault lasts
// (zero: as fast as memory). The node's log, stable and snapshot stores wait it out on each
// write, as raft waits out an fsync, so that the node falls behind the others; on the leader
// every commit waits.
type slowDisk struct {
	mu    sync.Mutex
	delay time.Duration
	// down is set while the node crashes: its writes end at once. cut wakes the writes under
	// way when it does.
	down bool
	cut  chan struct{}
}

func newSlowDisk() *slowDisk { return &slowDisk{cut: make(chan struct{})} }

func (d *slowDisk) set(delay time.Duration) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.delay = delay
}

func (d *slowDisk) write() {
	d.mu.Lock()
	delay, cut := d.delay, d.cut
	if d.down {
		delay = 0
	}
	d.mu.Unlock()
	if delay > 0 {
		select {
		case <-time.After(delay):
		case <-cut:
		}
	}
}

// crash ends the writes under way and those to come, until restart: raft's leader loop, asleep
// in a write, would otherwise leave the proposals queued behind it unanswered when it shuts
// down (simCluster.crash).
func (d *slowDisk) crash() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.down = true
	close(d.cut)
	d.cut = make(chan struct{})
}

func (d *slowDisk) restart() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.down = false
}

// slowLogStore is a node's log and stable store (term, vote) on its slowDisk, refusing gaps or
// not as its kind says.
type slowLogStore struct {
	*raft.InmemStore
	disk *slowDisk
	kind logStoreKind
}

// logStoreKind is which of a data dir's Raft log stores a seed's nodes behave as.
type logStoreKind int

const (
	// walLike refuses gaps, as raft-wal, a new data dir's default, does: raft empties the log
	// after installing a snapshot.
	walLike logStoreKind = iota
	// boltLike keeps gaps, as raft-boltdb, the store of data dirs made before, does: raft
	// keeps what the log holds past an installed snapshot, when it agrees with it.
	boltLike
)

// storeKindOf is the kind of log store of seed's nodes: odd seeds are bolt-like.
func storeKindOf(seed int64) logStoreKind {
	if seed%2 != 0 {
		return boltLike
	}
	return walLike
}

func (k logStoreKind) String() string {
	if k == boltLike {
		return "bolt-like"
	}
	return "wal-like"
}

func (s slowLogStore) StoreLog(l *raft.Log) error {
	s.disk.write()
	return s.InmemStore.StoreLog(l)
}

func (s slowLogStore) StoreLogs(logs []*raft.Log) error {
	s.disk.write()
	return s.InmemStore.StoreLogs(logs)
}

func (s slowLogStore) DeleteRange(min, max uint64) error {
	s.disk.write()
	return s.InmemStore.DeleteRange(min, max)
}

// IsMonotonic says whether the store refuses gaps (its kind).
func (s slowLogStore) IsMonotonic() bool { return s.kind == walLike }

func (s slowLogStore) Set(key, val []byte) error {
	s.disk.write()
	return s.InmemStore.Set(key, val)
}

func (s slowLogStore) SetUint64(key []byte, val uint64) error {
	s.disk.write()
	return s.InmemStore.SetUint64(key, val)
}

// slowSnapshots is a node's snapshot store on its slowDisk: a snapshot, taken or installed,
// is done once its sink closes, after the disk's delay.
type slowSnapshots struct {
	*raft.InmemSnapshotStore
	disk *slowDisk
}

func (s slowSnapshots) Create(version raft.SnapshotVersion, index, term uint64, configuration raft.Configuration,
	configurationIndex uint64, trans raft.Transport) (raft.SnapshotSink, error) {
	sink, err := s.InmemSnapshotStore.Create(version, index, term, configuration, configurationIndex, trans)
	if err != nil {
		return nil, err
	}
	return slowSink{SnapshotSink: sink, disk: s.disk}, nil
}

type slowSink struct {
	raft.SnapshotSink
	disk *slowDisk
}

func (s slowSink) Close() error {
	s.disk.write()
	return s.SnapshotSink.Close()
}

var (
	_ raft.LogStore          = slowLogStore{}
	_ raft.MonotonicLogStore = slowLogStore{}
	_ raft.StableStore       = slowLogStore{}
	_ raft.SnapshotStore     = slowSnapshots{}
)
