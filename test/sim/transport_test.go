package sim

import (
	"io"
	"sync"
	"time"

	"github.com/hashicorp/raft"
)

// linkDelays is the extra one-way latency of each directed link (from, to).
type linkDelays struct {
	mu    sync.Mutex
	addrs map[raft.ServerAddress]int
	delay map[[2]int]time.Duration
}

func newLinkDelays(n int) *linkDelays {
	d := &linkDelays{addrs: map[raft.ServerAddress]int{}, delay: map[[2]int]time.Duration{}}
	for i := range n {
		d.addrs[raft.ServerAddress(nodeAddr(i))] = i
	}
	return d
}

func (d *linkDelays) set(from, to int, delay time.Duration) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.delay[[2]int{from, to}] = delay
}

func (d *linkDelays) clear() {
	d.mu.Lock()
	defer d.mu.Unlock()
	clear(d.delay)
}

func (d *linkDelays) of(from int, to raft.ServerAddress) time.Duration {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.delay[[2]int{from, d.addrs[to]}]
}

// slowTransport is a node's in-memory transport with each RPC held back by its link's delay.
// It replicates without pipelining, so that every append pays the delay.
type slowTransport struct {
	*raft.InmemTransport
	from   int
	delays *linkDelays
}

func (s *slowTransport) wait(target raft.ServerAddress) {
	if d := s.delays.of(s.from, target); d > 0 {
		time.Sleep(d)
	}
}

func (s *slowTransport) AppendEntriesPipeline(raft.ServerID, raft.ServerAddress) (raft.AppendPipeline, error) {
	return nil, raft.ErrPipelineReplicationNotSupported
}

func (s *slowTransport) AppendEntries(id raft.ServerID, target raft.ServerAddress, args *raft.AppendEntriesRequest, resp *raft.AppendEntriesResponse) error {
	s.wait(target)
	return s.InmemTransport.AppendEntries(id, target, args, resp)
}

func (s *slowTransport) RequestVote(id raft.ServerID, target raft.ServerAddress, args *raft.RequestVoteRequest, resp *raft.RequestVoteResponse) error {
	s.wait(target)
	return s.InmemTransport.RequestVote(id, target, args, resp)
}

func (s *slowTransport) RequestPreVote(id raft.ServerID, target raft.ServerAddress, args *raft.RequestPreVoteRequest, resp *raft.RequestPreVoteResponse) error {
	s.wait(target)
	return s.InmemTransport.RequestPreVote(id, target, args, resp)
}

func (s *slowTransport) InstallSnapshot(id raft.ServerID, target raft.ServerAddress, args *raft.InstallSnapshotRequest, resp *raft.InstallSnapshotResponse, data io.Reader) error {
	s.wait(target)
	return s.InmemTransport.InstallSnapshot(id, target, args, resp, data)
}

func (s *slowTransport) TimeoutNow(id raft.ServerID, target raft.ServerAddress, args *raft.TimeoutNowRequest, resp *raft.TimeoutNowResponse) error {
	s.wait(target)
	return s.InmemTransport.TimeoutNow(id, target, args, resp)
}
