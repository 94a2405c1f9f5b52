package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/fsm"
	"github.com/idnode/idnode/internal/forward"
	forwardv1 "github.com/idnode/idnode/proto/idnode/forward/v1"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

const (
	// backupChunkSize is the payload of one BackupChunk / RestoreChunk message.
	backupChunkSize = 256 << 10
	// maxRestoreBytes bounds the backup a Restore call may send (it is held in memory).
	maxRestoreBytes = fsm.MaxBackupBytes
	// restoreRecordsPerCommand bounds one RaiseFloor log entry.
	restoreRecordsPerCommand = 10_000
)

// Backup streams a consistent copy of the FSM, or of one database's counters, taken on the
// leader after a read barrier, in the snapshot format. A follower forwards the stream from
// the leader.
func (s *clusterService) Backup(req *idnodev1.BackupRequest, stream grpc.ServerStreamingServer[idnodev1.BackupChunk]) error {
	ctx := stream.Context()
	if err := s.arriving(ctx, &req.Database, nil); err != nil {
		return err
	}
	return forwardStream(s.core, ctx, req, stream, s.leader().Backup,
		via(leaderHalves(idnodev1.NewClusterServiceClient), idnodev1.ClusterServiceClient.Backup), via(forwardv1.NewLeaderClient, forwardv1.LeaderClient.Backup))
}

// Backup runs on the leader: a read barrier, then the copy, in chunks.
func (l clusterLeader) Backup(req *idnodev1.BackupRequest, stream grpc.ServerStreamingServer[idnodev1.BackupChunk]) error {
	s, ctx, db := l.s, stream.Context(), req.GetDatabase()
	if err := s.barrier(ctx); err != nil {
		return err
	}
	// Everything up to this index is in the backup (perhaps a little more).
	w := &chunkWriter{first: &idnodev1.BackupChunk{Leader: s.cfg.Tag, Index: s.node.AppliedIndex()}, send: stream.Send}
	if err := l.writeBackup(w, db); err != nil {
		return err
	}
	if err := w.flush(); err != nil {
		return err
	}
	s.log.Info("backup sent", "bytes", w.total, "index", w.first.GetIndex(), "database", db)
	return nil
}

// writeBackup writes the backup of database db ("": the whole cluster) to w, with the
// cluster's issue rates; call it after a read barrier.
func (l clusterLeader) writeBackup(w io.Writer, db string) error {
	s := l.s
	rates := s.rates.backup()
	write := func(w io.Writer) error { return s.node.FSM().WriteBackup(w, rates) }
	if db != "" {
		write = func(w io.Writer) error { return s.node.FSM().WriteDatabaseBackup(w, db, rates) }
	}
	return toStatus(write(w))
}

// WriteBackup writes a backup of the whole cluster to w, the bytes a Backup call streams, on
// this node, which must lead (the read barrier refuses otherwise). It is the node's own
// scheduled backup (node/backupschedule.go): a call from within the process, so it passes no
// admin check and leaves no audit line, which are about callers from outside.
func (s *Server) WriteBackup(ctx context.Context, w io.Writer) error {
	if err := s.barrier(ctx); err != nil {
		return err
	}
	return s.cluster.leader().writeBackup(w, "")
}

// chunkWriter cuts what is written into BackupChunks of backupChunkSize.
type chunkWriter struct {
	first *idnodev1.BackupChunk // sent with the first data (or alone, for an empty write)
	send  func(*idnodev1.BackupChunk) error
	buf   []byte
	total int
	sent  bool
}

func (w *chunkWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		take := min(len(p), backupChunkSize-len(w.buf))
		w.buf = append(w.buf, p[:take]...)
		p = p[take:]
		if len(w.buf) == backupChunkSize {
			if err := w.flush(); err != nil {
				return n - len(p), err
			}
		}
	}
	return n, nil
}

func (w *chunkWriter) flush() error {
	if len(w.buf) == 0 && w.sent {
		return nil
	}
	c := &idnodev1.BackupChunk{}
	if !w.sent {
		c = w.first
	}
	c.Data = w.buf
	if err := w.send(c); err != nil {
		return err
	}
	w.total += len(w.buf)
	w.buf, w.sent = make([]byte, 0, backupChunkSize), true
	return nil
}

// Restore raises this cluster's floors to a backup's and puts its series journals back: see
// fsm.RaiseFloor, fsm.RestoreSeries and fsm/DESIGN.md. It reads the whole backup first (in
// memory, at most maxRestoreBytes), then (on the leader) applies it in bounded log entries. A
// follower forwards the backup to the leader.
func (s *clusterService) Restore(stream grpc.ClientStreamingServer[idnodev1.RestoreChunk, idnodev1.RestoreResponse]) error {
	ctx := stream.Context()
	data, backup, err := receiveBackup(stream, s.cfg.Now())
	if err != nil {
		return err
	}
	resp, err := s.forwardRestore(ctx, data, backup.ahead)
	if errors.Is(err, forward.ErrSelf) {
		resp, err = s.leader().restore(ctx, backup)
	}
	if err != nil {
		return err
	}
	return stream.SendAndClose(resp)
}

// Restore runs on the leader, for a restore another node took and checked.
func (l clusterLeader) Restore(stream grpc.ClientStreamingServer[idnodev1.RestoreChunk, idnodev1.RestoreResponse]) error {
	_, backup, err := receiveBackup(stream, l.s.cfg.Now())
	if err != nil {
		return err
	}
	resp, err := l.restore(stream.Context(), backup)
	if err != nil {
		return err
	}
	return stream.SendAndClose(resp)
}

// receivedBackup is a Restore call's backup, decoded and with the call's margin applied.
type receivedBackup struct {
	*fsm.Backup
	ahead   *idnodev1.RestoreMargin // as the call asked it
	skipped fsm.MarginSkipped
	rates   *idnodev1.RatesMargin // what a margin by rates assumed; nil without one
}

// receiveBackup reads a Restore call's backup whole, at most maxRestoreBytes, decodes it and
// raises its counters by the margin of the first chunk (docs/decisions/0040-restore-margin.md).
// A margin that is negative or takes a counter past the largest int64 refuses the call here,
// before anything is forwarded or changed. A margin by rates takes the backup's age at now.
func receiveBackup(stream grpc.ClientStreamingServer[idnodev1.RestoreChunk, idnodev1.RestoreResponse], now time.Time) ([]byte, *receivedBackup, error) {
	var data []byte
	var ahead *idnodev1.RestoreMargin
	for first := true; ; first = false {
		c, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, err
		}
		if first {
			ahead = c.GetAhead()
		}
		if len(data)+len(c.GetData()) > maxRestoreBytes {
			return nil, nil, status.Errorf(codes.ResourceExhausted, "backup is larger than %d bytes", maxRestoreBytes)
		}
		data = append(data, c.GetData()...)
	}
	backup, err := fsm.ReadBackup(bytes.NewReader(data))
	if err != nil {
		return nil, nil, status.Errorf(codes.InvalidArgument, "not an idnode backup: %v", err)
	}
	skipped, err := backup.Ahead(counterMargin(ahead.GetIdentities()), counterMargin(ahead.GetHilo()))
	if err != nil {
		return nil, nil, toStatus(fmt.Errorf("restore margin: %w", err))
	}
	received := &receivedBackup{Backup: backup, ahead: ahead, skipped: skipped}
	if ahead.GetByRates() {
		received.aheadByRates(now)
	}
	return data, received, nil
}

// aheadByRates raises the kinds whose margin the call left unset by the backup's rates
// (docs/decisions/0044-restore-margin-by-rates.md), and says what that assumed.
func (b *receivedBackup) aheadByRates(now time.Time) {
	m := fsm.MarginByRates(b.Rates, now)
	byRates := b.AheadByRates(m, b.ahead.GetIdentities() == nil, b.ahead.GetHilo() == nil)
	if b.ahead.GetIdentities() == nil {
		b.skipped.Identities = byRates.Identities
	}
	if b.ahead.GetHilo() == nil {
		b.skipped.HiLo = byRates.HiLo
	}
	b.rates = &idnodev1.RatesMargin{Recorded: m.Rates.Recorded(), IdentitiesPerSecond: m.Rates.IdentitiesPerSecond, HiloPerSecond: m.Rates.HiLoPerSecond,
		AgeMs: m.Age.Milliseconds(), TakenInFuture: m.Future, Factor: fsm.RatesFactor}
	if m.Rates.Recorded() {
		b.rates.TakenAtMs = m.Rates.TakenAt.UnixMilli()
	}
}

// counterMargin is m as the FSM takes it; an unset margin is zero.
func counterMargin(m *idnodev1.CounterMargin) fsm.Margin {
	return fsm.Margin{Add: m.GetAdd(), Percent: m.GetPercent()}
}

// restore puts backup b's opaque keys back and raises this cluster's floors to b's (its margin
// added), on the leader.
func (l clusterLeader) restore(ctx context.Context, b *receivedBackup) (*idnodev1.RestoreResponse, error) {
	s := l.s
	// The tag check below reads the registry and the configuration: it must see all of it.
	if err := s.node.ReadBarrier(ctx); err != nil {
		return nil, s.raftError(err)
	}
	if err := s.opaqueRestorable(b.Backup); err != nil {
		return nil, err
	}
	if err := s.reserveConfiguredTags(ctx); err != nil {
		return nil, err
	}
	var clash []string
	for _, n := range s.node.FSM().Nodes() {
		if _, found := slices.BinarySearch(b.Tags, n.Tag); found {
			clash = append(clash, n.Tag)
		}
	}
	if len(clash) > 0 {
		return nil, status.Errorf(codes.FailedPrecondition,
			"the backup's cluster used node tags %s, which nodes of this cluster hold: their etag counters started again at 1, so their server-side IDs "+
				"would repeat the old cluster's. Restore into a cluster whose nodes use other tags (e.g. --peers with new tags)", strings.Join(clash, ", "))
	}
	resp := &idnodev1.RestoreResponse{Identities: int64(len(b.Identities)), HiloTags: int64(len(b.HiLo)), Tags: int64(len(b.Tags)),
		Claims: int64(len(b.Claims)), Series: int64(len(b.Series)), Workers: int64(len(b.Workers)),
		Ahead: b.ahead, IdentitiesSkippedMin: b.skipped.Identities.Min, IdentitiesSkippedMax: b.skipped.Identities.Max,
		HiloSkippedMin: b.skipped.HiLo.Min, HiloSkippedMax: b.skipped.HiLo.Max, OpaqueDatabases: int64(len(b.Opaque)), Rates: b.rates}
	if b.rates.GetTakenInFuture() {
		s.log.Warn("restore: the backup was taken after this leader's now (clock skew); its margin by rates takes its age as 0",
			"taken_at_ms", b.rates.GetTakenAtMs())
	}
	// The keys before the floors (restoreopaque.go).
	var err error
	if resp.OpaqueRestored, err = s.restoreOpaque(ctx, b.Backup); err != nil {
		return nil, err
	}
	for _, cmd := range b.RaiseFloorCommands(restoreRecordsPerCommand) {
		out, err := propose(ctx, s.core, fsm.ProposeRaiseFloor, cmd)
		if err != nil {
			return nil, err
		}
		r := out
		resp.IdentitiesRaised += int64(r.IdentitiesRaised)
		resp.HiloRaised += int64(r.HiLoRaised)
		resp.TagsRetired += int64(r.TagsRetired)
		resp.ClaimsRestored += int64(r.ClaimsRestored)
		resp.WorkersRaised += int64(r.WorkersRaised)
	}
	// The series after the floors: a series that diverges from this cluster's refuses its
	// command, after every counter was raised.
	for _, cmd := range b.RestoreSeriesCommands() {
		r, err := propose(ctx, s.core, fsm.ProposeRestoreSeries, cmd)
		if err != nil {
			return nil, err
		}
		resp.SeriesEntriesRestored += int64(r.Appended)
	}
	s.log.Warn("backup restored: counters raised to the backup's, its node tags retired",
		"identities", resp.Identities, "identities_raised", resp.IdentitiesRaised,
		"hilo_tags", resp.HiloTags, "hilo_raised", resp.HiloRaised, "tags", resp.Tags, "tags_retired", resp.TagsRetired,
		"claims", resp.Claims, "claims_restored", resp.ClaimsRestored, "series", resp.Series, "series_entries_restored", resp.SeriesEntriesRestored,
		"workers", resp.Workers, "workers_raised", resp.WorkersRaised, "opaque_databases", resp.OpaqueDatabases, "opaque_restored", resp.OpaqueRestored,
		"identities_skipped_max", resp.IdentitiesSkippedMax, "hilo_skipped_max", resp.HiloSkippedMax)
	return resp, nil
}

// forwardRestore sends the backup and its margin to the leader; ErrSelf when the restore is
// this node's.
func (s *clusterService) forwardRestore(ctx context.Context, data []byte, ahead *idnodev1.RestoreMargin) (*idnodev1.RestoreResponse, error) {
	if s.fwd.Local(ctx) {
		return nil, forward.ErrSelf
	}
	var resp *idnodev1.RestoreResponse
	err := s.fwd.Do(ctx, forward.Stream, func(h *forward.Hop) error {
		var err error
		resp, err = sendBackup(h, leaderHalves(idnodev1.NewClusterServiceClient)(h.Conn).Restore, data, ahead)
		// A leader that serves the restore only as a Leader RPC (relay.go).
		viaLeaderService, err := s.olderLeaders.answered(h.Context(), err)
		if viaLeaderService {
			resp, err = sendBackup(h, forwardv1.NewLeaderClient(h.Conn).Restore, data, ahead)
		}
		return err
	})
	return resp, err
}

// sendBackup sends data, and the margin with its first chunk, through the hop to the restore
// that open starts on the leader.
func sendBackup(h *forward.Hop, open func(context.Context, ...grpc.CallOption) (grpc.ClientStreamingClient[idnodev1.RestoreChunk, idnodev1.RestoreResponse], error),
	data []byte, ahead *idnodev1.RestoreMargin) (*idnodev1.RestoreResponse, error) {
	out, err := open(h.Context(), h.CallOptions()...)
	if err != nil {
		return nil, err
	}
	for rest := data; len(rest) > 0; {
		n := min(len(rest), backupChunkSize)
		if err := out.Send(&idnodev1.RestoreChunk{Data: rest[:n], Ahead: ahead}); err != nil {
			break // the real error comes from CloseAndRecv
		}
		rest, ahead = rest[n:], nil
	}
	return out.CloseAndRecv()
}
