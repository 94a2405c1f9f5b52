package server

import (
	"github.com/idnode/idnode/identity"
	"github.com/idnode/idnode/internal/etag"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// idService serves IdService: every way of handing out IDs (generate.go), with identities,
// claims, HiLo ranges and their pools, and numeric IDs' worker leases. The calls that change
// the cluster's state run their leader half (idLeader) on the leader.
type idService struct {
	idnodev1.UnimplementedIdServiceServer
	*core
	// leaderBatch commits identity batches to Raft on the leader; forwardBatch sends a
	// follower's batches to the leader. See identity_forward.go.
	leaderBatch  *identity.Batcher
	forwardBatch *identity.Batcher
	pools        *hiloPools // hilopool.go
	numeric      numericMinters
	hiloGaps     hiloGaps // the HiLo numbers returns could not take back (headroom.go)
	// etags numbers server-side IDs; etagRecord says when the cluster's record of it has
	// been read since the node started (etagrecord.go).
	etags      *etag.Counter
	etagRecord *etagRecord
}

// newIDService builds the ID service over c; relay configures the batcher that sends a
// follower's identity batches to the leader.
func newIDService(c *core, etags *etag.Counter, record *etagRecord, relay identity.Options) *idService {
	s := &idService{
		core:        c,
		leaderBatch: identity.NewBatcher(identity.RaftCommitter{Applier: c.node, Now: c.cfg.Now}, identityRounds(c.cfg, true)),
		pools:       newHiLoPools(c),
		etags:       etags,
		etagRecord:  record,
	}
	s.forwardBatch = identity.NewBatcher(forwardCommitter{s}, relay)
	return s
}

// close stops the identity batchers; calls still in them are refused.
func (s *idService) close() {
	s.leaderBatch.Close()
	s.forwardBatch.Close()
}

// idLeader is the leader's half of IdService's calls: one method per Leader RPC of the same
// name, which trusts the checks its public handler made where the call arrived.
type idLeader struct {
	idnodev1.UnsafeIdServiceServer // a public call without its method here does not compile
	s                              *idService
}

func (s *idService) leader() idLeader { return idLeader{s: s} }
