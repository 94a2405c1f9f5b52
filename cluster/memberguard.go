package cluster

import (
	"fmt"
	"io"
	"sync"

	"github.com/hashicorp/raft"
)

// memberGuard is raft's TCP transport with one more check: the node that answers at a
// member's address must be that member. raft counts a vote or an append acknowledgement for
// the server ID it asked, whoever answered; a node that lost its data dir and came back at
// the same address answers with a new ID (docid.MemberID), and its empty log must not count as the
// old member's. The formation check (formation.go) already keeps such a node from starting;
// this guard holds even when something else put it there (an old binary, a wrong address).
type memberGuard struct {
	*raft.NetworkTransport
}

var (
	_ raft.Transport   = (*memberGuard)(nil)
	_ raft.WithClose   = (*memberGuard)(nil)
	_ raft.WithPreVote = (*memberGuard)(nil)
)

// wrongMember checks the answer's header against the member that was asked. An empty ID
// comes from raft versions older than server IDs in headers and is accepted.
func wrongMember(id raft.ServerID, target raft.ServerAddress, h raft.RPCHeader) error {
	if len(h.ID) == 0 || raft.ServerID(h.ID) == id {
		return nil
	}
	return fmt.Errorf("%w: %s answers as %s, not as member %s", ErrWrongMember, target, h.ID, id)
}

func (g *memberGuard) AppendEntries(id raft.ServerID, target raft.ServerAddress, args *raft.AppendEntriesRequest, resp *raft.AppendEntriesResponse) error {
	if err := g.NetworkTransport.AppendEntries(id, target, args, resp); err != nil {
		return err
	}
	return wrongMember(id, target, resp.RPCHeader)
}

func (g *memberGuard) RequestVote(id raft.ServerID, target raft.ServerAddress, args *raft.RequestVoteRequest, resp *raft.RequestVoteResponse) error {
	if err := g.NetworkTransport.RequestVote(id, target, args, resp); err != nil {
		return err
	}
	return wrongMember(id, target, resp.RPCHeader)
}

func (g *memberGuard) RequestPreVote(id raft.ServerID, target raft.ServerAddress, args *raft.RequestPreVoteRequest, resp *raft.RequestPreVoteResponse) error {
	if err := g.NetworkTransport.RequestPreVote(id, target, args, resp); err != nil {
		return err
	}
	return wrongMember(id, target, resp.RPCHeader)
}

func (g *memberGuard) InstallSnapshot(id raft.ServerID, target raft.ServerAddress, args *raft.InstallSnapshotRequest, resp *raft.InstallSnapshotResponse, data io.Reader) error {
	if err := g.NetworkTransport.InstallSnapshot(id, target, args, resp, data); err != nil {
		return err
	}
	return wrongMember(id, target, resp.RPCHeader)
}

func (g *memberGuard) TimeoutNow(id raft.ServerID, target raft.ServerAddress, args *raft.TimeoutNowRequest, resp *raft.TimeoutNowResponse) error {
	if err := g.NetworkTransport.TimeoutNow(id, target, args, resp); err != nil {
		return err
	}
	return wrongMember(id, target, resp.RPCHeader)
}

func (g *memberGuard) AppendEntriesPipeline(id raft.ServerID, target raft.ServerAddress) (raft.AppendPipeline, error) {
	p, err := g.NetworkTransport.AppendEntriesPipeline(id, target)
	if err != nil {
		return nil, err
	}
	gp := &guardedPipeline{AppendPipeline: p, id: id, target: target, out: make(chan raft.AppendFuture), done: make(chan struct{})}
	go gp.relay()
	return gp, nil
}

// guardedPipeline passes the pipeline's answers on, turning one from the wrong member into a
// failure. raft reads a pipelined answer's Term and Success, not its error: an unsuccessful
// answer in the current term stops the pipeline, and the plain AppendEntries raft falls back
// to is refused by the guard.
type guardedPipeline struct {
	raft.AppendPipeline
	id     raft.ServerID
	target raft.ServerAddress
	out    chan raft.AppendFuture
	done   chan struct{}
	once   sync.Once
}

func (p *guardedPipeline) relay() {
	in := p.AppendPipeline.Consumer()
	for {
		select {
		case f := <-in:
			if resp := f.Response(); wrongMember(p.id, p.target, resp.RPCHeader) != nil {
				resp.Term, resp.Success = f.Request().Term, false
			}
			select {
			case p.out <- f:
			case <-p.done:
				return
			}
		case <-p.done:
			return
		}
	}
}

func (p *guardedPipeline) Consumer() <-chan raft.AppendFuture { return p.out }

func (p *guardedPipeline) Close() error {
	p.once.Do(func() { close(p.done) })
	return p.AppendPipeline.Close()
}
