package server

import (
	"context"
	"encoding/hex"
	"fmt"
	"math"
	"slices"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"

	"github.com/idnode/idnode/fsm"
	"github.com/idnode/idnode/internal/batch"
	"github.com/idnode/idnode/internal/forward"
	forwardv1 "github.com/idnode/idnode/proto/idnode/forward/v1"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/reason"
	"github.com/idnode/idnode/series"
)

// seriesService serves SeriesService: fiscal series, numbered without gaps, each number
// chained to the one before in a journal. Each call is checked where it arrives
// (series.CheckX, the database, who the caller is) and runs its leader half (seriesLeader);
// the journal itself is package series', applied by the FSM.
type seriesService struct {
	idnodev1.UnimplementedSeriesServiceServer
	*core
	// issues coalesces series issues on the leader into SeriesIssueBatch entries; issueRelay
	// sends a follower's to the leader, many callers' in one call (series_forward.go).
	issues     *batch.Batcher[*raftv1.SeriesIssue, series.IssueResult]
	issueRelay *batch.Batcher[*raftv1.SeriesIssue, series.IssueResult]
	// journalReads bounds the journals this node reads at once (Journal and VerifySeries).
	journalReads listingSlots
}

// newSeriesService builds the series service over c; relayInFlight is how many batches of
// issues a follower may have on their way to the leader at once.
func newSeriesService(c *core, relayInFlight int) *seriesService {
	s := &seriesService{core: c, journalReads: newListingSlots(maxJournalReads)}
	opts := c.cfg.Identity
	opts.MaxBatch = min(max(opts.MaxBatch, 1), maxIssueBatch)
	opts.OnBatch, opts.OnRound = nil, nil
	failed := func(err error) series.IssueResult { return series.IssueResult{Err: err} }
	s.issues = batch.New(issueCommitter{c}, opts, failed)
	opts.MaxInFlight = relayInFlight
	s.issueRelay = batch.New(issueRelay{s}, opts, failed)
	return s
}

// close stops the batchers; calls still in them are refused.
func (s *seriesService) close() {
	s.issues.Close()
	s.issueRelay.Close()
}

// seriesLeader is the leader's half of SeriesService's calls: one method per Leader RPC of
// the same name, which trusts the checks its public handler made where the call arrived.
type seriesLeader struct {
	idnodev1.UnsafeSeriesServiceServer // a public call without its method here does not compile
	s                                  *seriesService
}

func (s *seriesService) leader() seriesLeader { return seriesLeader{s: s} }

// CreateSeries creates a series in the request's database.
func (s *seriesService) CreateSeries(ctx context.Context, req *idnodev1.CreateSeriesRequest) (*idnodev1.CreateSeriesResponse, error) {
	if err := s.arriving(ctx, &req.Database, &req.Actor); err != nil {
		return nil, err
	}
	if err := series.CheckCreate(createCommand(req, 0)); err != nil {
		return nil, toStatus(err)
	}
	return forward.Call(s.fwd, ctx, req, forward.Unary, s.leader().CreateSeries, viaSeries(s.core, idnodev1.SeriesServiceClient.CreateSeries, forwardv1.LeaderClient.CreateSeries))
}

func (l seriesLeader) CreateSeries(ctx context.Context, req *idnodev1.CreateSeriesRequest) (*idnodev1.CreateSeriesResponse, error) {
	l.s.trustedActor(ctx, &req.Actor)
	def, err := propose(ctx, l.s.core, fsm.ProposeCreateSeries, createCommand(req, l.s.cfg.Now().UnixMilli()))
	if err != nil {
		return nil, err
	}
	l.s.log.Info("series created", "database", def.GetDatabase(), "series", def.GetName(), "format", def.GetFormat(),
		"period", def.GetPeriod().String(), "policy", def.GetPolicy().String(), "by", def.GetCreatedBy())
	return &idnodev1.CreateSeriesResponse{Series: seriesOf(def)}, nil
}

// ListSeries lists the request's database's series, linearizably.
func (s *seriesService) ListSeries(ctx context.Context, req *idnodev1.ListSeriesRequest) (*idnodev1.ListSeriesResponse, error) {
	if err := s.arriving(ctx, &req.Database, nil); err != nil {
		return nil, err
	}
	return forward.Call(s.fwd, ctx, req, forward.Unary, s.leader().ListSeries, viaSeries(s.core, idnodev1.SeriesServiceClient.ListSeries, forwardv1.LeaderClient.ListSeries))
}

func (l seriesLeader) ListSeries(ctx context.Context, req *idnodev1.ListSeriesRequest) (*idnodev1.ListSeriesResponse, error) {
	if err := l.s.barrier(ctx); err != nil {
		return nil, err
	}
	store, err := l.s.journal()
	if err != nil {
		return nil, toStatus(err)
	}
	defs, err := store.List(req.GetDatabase())
	if err != nil {
		return nil, toStatus(err)
	}
	out := &idnodev1.ListSeriesResponse{Series: make([]*idnodev1.Series, len(defs))}
	for i, d := range defs {
		out.Series[i] = seriesOf(d)
	}
	return out, nil
}

// Issue assigns the next number of a series to a document: through this node's batcher, the
// leader's into SeriesIssueBatch entries, a follower's to the leader (series_forward.go).
func (s *seriesService) Issue(ctx context.Context, req *idnodev1.IssueRequest) (*idnodev1.IssueResponse, error) {
	if err := s.arriving(ctx, &req.Database, &req.Actor); err != nil {
		return nil, err
	}
	is, err := issueCommand(req)
	if err != nil {
		return nil, err
	}
	if err := series.CheckIssue(is); err != nil {
		return nil, toStatus(err)
	}
	b := s.issueRelay
	if s.fwd.Local(ctx) {
		b = s.issues
	}
	res, err := b.Do(ctx, is)
	if err != nil {
		return nil, s.raftError(err)
	}
	if res.Err != nil {
		return nil, s.raftError(res.Err)
	}
	return &idnodev1.IssueResponse{Entry: entryOf(res.Entry)}, nil
}

// maxIssueBatch caps the issues of one log entry: an issue may carry 5 KB of fields.
const maxIssueBatch = 256

// issueCommitter commits a batch of issues as one SeriesIssueBatch entry: many callers'
// numbers cost one replicated, fsynced write, as identities do.
type issueCommitter struct{ s *core }

func (c issueCommitter) Commit(ctx context.Context, issues []*raftv1.SeriesIssue) ([]series.IssueResult, error) {
	res, err := propose(ctx, c.s, fsm.ProposeSeriesIssueBatch, &raftv1.SeriesIssueBatch{Issues: issues, ProposedAtMs: c.s.cfg.Now().UnixMilli()})
	return res.Results, err
}

// Void records a voided number of a series.
func (s *seriesService) Void(ctx context.Context, req *idnodev1.VoidRequest) (*idnodev1.VoidResponse, error) {
	if err := s.arriving(ctx, &req.Database, &req.Actor); err != nil {
		return nil, err
	}
	if err := series.CheckVoid(voidCommand(req, 0)); err != nil {
		return nil, toStatus(err)
	}
	return forward.Call(s.fwd, ctx, req, forward.Unary, s.leader().Void, viaSeries(s.core, idnodev1.SeriesServiceClient.Void, forwardv1.LeaderClient.Void))
}

func (l seriesLeader) Void(ctx context.Context, req *idnodev1.VoidRequest) (*idnodev1.VoidResponse, error) {
	l.s.trustedActor(ctx, &req.Actor)
	e, err := propose(ctx, l.s.core, fsm.ProposeSeriesVoid, voidCommand(req, l.s.cfg.Now().UnixMilli()))
	if err != nil {
		return nil, err
	}
	l.s.log.Info("series number voided", "database", e.GetDatabase(), "series", e.GetSeries(), "id", e.GetId(),
		"reason", e.GetReason(), "by", e.GetActor())
	return &idnodev1.VoidResponse{Entry: entryOf(e)}, nil
}

// Journal streams a series' entries.
func (s *seriesService) Journal(req *idnodev1.JournalRequest, stream grpc.ServerStreamingServer[idnodev1.SeriesEntry]) error {
	ctx := stream.Context()
	release, err := s.arrivingRead(ctx, &req.Database, req.GetSeries())
	if err != nil {
		return err
	}
	defer release()
	return forwardStream(s.core, ctx, req, stream, s.leader().Journal,
		via(leaderHalves(idnodev1.NewSeriesServiceClient), idnodev1.SeriesServiceClient.Journal), via(forwardv1.NewLeaderClient, forwardv1.LeaderClient.Journal))
}

func (l seriesLeader) Journal(req *idnodev1.JournalRequest, stream grpc.ServerStreamingServer[idnodev1.SeriesEntry]) error {
	ctx := stream.Context()
	store, release, err := l.readJournal(ctx)
	if err != nil {
		return err
	}
	defer release()
	to := req.GetToSeq()
	if to == 0 {
		to = math.MaxUint64
	}
	// A chunk at a time: the store holds a read transaction while it reads, and a slow
	// caller must not hold one (it would keep series.db from growing).
	for from := max(req.GetFromSeq(), 1); from <= to; {
		chunk := make([]*idnodev1.SeriesEntry, 0, journalChunk)
		last := min(to, from+journalChunk-1)
		if last < from { // from+journalChunk-1 overflowed
			last = to
		}
		err := store.Entries(req.GetDatabase(), req.GetSeries(), from, last, func(e *raftv1.SeriesEntry) error {
			chunk = append(chunk, entryOf(e))
			return nil
		})
		if err != nil {
			return toStatus(err)
		}
		for _, e := range chunk {
			if err := stream.Send(e); err != nil {
				return err
			}
		}
		if len(chunk) < journalChunk || last == to {
			return nil
		}
		from = last + 1
	}
	return nil
}

// journalChunk is how many entries Journal reads at a time.
const journalChunk = 1000

// VerifySeries recomputes a series' chain.
func (s *seriesService) VerifySeries(ctx context.Context, req *idnodev1.VerifySeriesRequest) (*idnodev1.VerifySeriesResponse, error) {
	release, err := s.arrivingRead(ctx, &req.Database, req.GetSeries())
	if err != nil {
		return nil, err
	}
	defer release()
	return forward.Call(s.fwd, ctx, req, forward.Unary, s.leader().VerifySeries, viaSeries(s.core, idnodev1.SeriesServiceClient.VerifySeries, forwardv1.LeaderClient.VerifySeries))
}

func (l seriesLeader) VerifySeries(ctx context.Context, req *idnodev1.VerifySeriesRequest) (*idnodev1.VerifySeriesResponse, error) {
	store, release, err := l.readJournal(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	r, err := store.Verify(req.GetDatabase(), req.GetSeries())
	if err != nil {
		return nil, toStatus(err)
	}
	out := &idnodev1.VerifySeriesResponse{Ok: r.Break == nil, Entries: r.Entries, Issued: r.Issued, Voided: r.Voided}
	if r.Break != nil {
		out.BreakSeq, out.BreakReason = r.Break.Seq, r.Break.Reason
		l.s.log.Warn("series journal does not verify", "database", req.GetDatabase(), "series", req.GetSeries(),
			"seq", r.Break.Seq, "reason", r.Break.Reason)
	}
	return out, nil
}

// arrivingRead readies a read of a series' journal (Journal, VerifySeries) where it arrived:
// the call resolved (arriving), the series named well, and one of the node's journalReads
// slots, which a long read holds until release.
func (s *seriesService) arrivingRead(ctx context.Context, database *string, name string) (release func(), err error) {
	if err := s.arriving(ctx, database, nil); err != nil {
		return nil, err
	}
	if err := toStatus(series.CheckRef(*database, name)); err != nil {
		return nil, err
	}
	return s.journalReads.acquire(ctx)
}

// readJournal readies the leader's side of a journal read: slotted with a journalReads slot,
// and the store with every entry applied.
func (l seriesLeader) readJournal(ctx context.Context) (store *series.Store, release func(), err error) {
	if release, err = l.s.slotted(ctx, l.s.journalReads); err != nil {
		return nil, nil, err
	}
	if store, err = l.s.journal(); err != nil {
		release()
		return nil, nil, toStatus(err)
	}
	return store, release, nil
}

// trustedActor keeps the actor a node of this cluster resolved; a call that reached the
// leader's internal server from anything else (before the cluster has a secret, checked as
// the public call: leaderAccess) gets its own, so no caller names someone else.
func (s *core) trustedActor(ctx context.Context, actor *string) {
	if forward.Arrived(ctx) && !forward.FromNode(ctx) {
		*actor = s.actorOf(ctx)
	}
}

// journal is the store of series journals this node's FSM applies to, holding every entry
// applied so far.
func (s *seriesService) journal() (*series.Store, error) { return s.node.FSM().Series() }

func createCommand(req *idnodev1.CreateSeriesRequest, nowMs int64) *raftv1.CreateSeries {
	return &raftv1.CreateSeries{Database: req.GetDatabase(), Name: req.GetName(), Format: req.GetFormat(),
		Period: raftv1.SeriesPeriod(req.GetPeriod()), Policy: raftv1.SeriesPolicy(req.GetPolicy()),
		ProposedAtMs: nowMs, CreatedBy: req.GetActor(), RequestId: req.GetRequestId()}
}

// issueCommand is req as the log carries it; document_hash travels as hex and is kept as bytes.
func issueCommand(req *idnodev1.IssueRequest) (*raftv1.SeriesIssue, error) {
	sum, err := hex.DecodeString(req.GetDocumentHash())
	if err != nil {
		return nil, reason.Error(codes.InvalidArgument, reason.InvalidInput, fmt.Sprintf("document_hash must be hex: %v", err))
	}
	is := &raftv1.SeriesIssue{Database: req.GetDatabase(), Series: req.GetSeries(), RequestId: req.GetRequestId(),
		DocumentHash: sum, IssuedBy: req.GetActor()}
	for _, f := range req.GetFields() {
		is.Fields = append(is.Fields, &raftv1.SeriesField{Key: f.GetKey(), Value: f.GetValue()})
	}
	// The log carries them sorted, so every proposer of the same fields writes the same entry.
	slices.SortStableFunc(is.Fields, func(a, b *raftv1.SeriesField) int { return strings.Compare(a.GetKey(), b.GetKey()) })
	return is, nil
}

func voidCommand(req *idnodev1.VoidRequest, nowMs int64) *raftv1.SeriesVoid {
	return &raftv1.SeriesVoid{Database: req.GetDatabase(), Series: req.GetSeries(), Period: req.GetPeriod(), Number: req.GetNumber(),
		Reason: req.GetReason(), Correcting: req.GetCorrecting(), RequestId: req.GetRequestId(), VoidedBy: req.GetActor(), ProposedAtMs: nowMs}
}

func seriesOf(d *raftv1.SeriesDefinition) *idnodev1.Series {
	return &idnodev1.Series{Database: d.GetDatabase(), Name: d.GetName(), Format: d.GetFormat(),
		Period: idnodev1.SeriesPeriod(d.GetPeriod()), Policy: idnodev1.SeriesPolicy(d.GetPolicy()),
		CreatedAtMs: d.GetCreatedAtMs(), CreatedBy: d.GetCreatedBy(), Entries: d.GetEntries(),
		CurrentPeriod: d.GetCurrentPeriod(), LastNumber: d.GetLastNumber(), Issued: d.GetIssued(), Voided: d.GetVoided(),
		HeadHash: hex.EncodeToString(d.GetHeadHash())}
}

func entryOf(e *raftv1.SeriesEntry) *idnodev1.SeriesEntry {
	out := &idnodev1.SeriesEntry{Database: e.GetDatabase(), Series: e.GetSeries(), Seq: e.GetSeq(),
		Kind: idnodev1.SeriesEntryKind(e.GetKind()), Period: e.GetPeriod(), Number: e.GetNumber(), Id: e.GetId(),
		TimeMs: e.GetTimeMs(), RequestId: e.GetRequestId(), DocumentHash: hex.EncodeToString(e.GetDocumentHash()),
		Actor: e.GetActor(), Reason: e.GetReason(), Correcting: e.GetCorrecting(),
		PrevHash: hex.EncodeToString(e.GetPrevHash()), Hash: hex.EncodeToString(e.GetHash())}
	for _, f := range e.GetFields() {
		out.Fields = append(out.Fields, &idnodev1.SeriesField{Key: f.GetKey(), Value: f.GetValue()})
	}
	return out
}
