package sim

import (
	"cmp"
	"context"
	"crypto/sha256"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/idnode/idnode/fsm"
	"github.com/idnode/idnode/internal/batch"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
	"github.com/idnode/idnode/series"
	"github.com/idnode/idnode/test/helpers/ledger"
)

// The fiscal series the series clients number documents in: gapless, without periods, so that
// every number from 1 to the head must be issued once (docs/series.md).
const (
	seriesName   = "INV"
	seriesFormat = "INV-{n:06}"
)

// seriesCommitter commits a batch of issues through node i as one SeriesIssueBatch entry
// stamped with that node's clock, as the server's issue batcher does on the leader.
type seriesCommitter struct {
	s *sim
	i int
}

func (c seriesCommitter) Commit(ctx context.Context, issues []*raftv1.SeriesIssue) ([]series.IssueResult, error) {
	res, err := fsm.Propose(ctx, applier{c.s.c, c.i}, fsm.ProposeSeriesIssueBatch, &raftv1.SeriesIssueBatch{Issues: issues, ProposedAtMs: c.s.nowMs(c.i)})
	return res.Results, err
}

// newIssuer is node i's series issue batcher, with the identity batcher's options, as the
// server's is.
func (s *sim) newIssuer(i int) *batch.Batcher[*raftv1.SeriesIssue, series.IssueResult] {
	return batch.New(seriesCommitter{s, i}, batchOptions, func(err error) series.IssueResult { return series.IssueResult{Err: err} })
}

// createSeries creates the series the clients issue in, before they start.
func (s *sim) createSeries(ctx context.Context) error {
	req := &raftv1.CreateSeries{Name: seriesName, Format: seriesFormat, RequestId: "create-" + seriesName}
	_, err := s.call(ctx, func(ctx context.Context, i int) error {
		req.ProposedAtMs = s.nowMs(i)
		_, err := fsm.Propose(ctx, applier{s.c, i}, fsm.ProposeCreateSeries, req)
		return err
	})
	if err != nil {
		return fmt.Errorf("create the series %s: %w", seriesName, err)
	}
	return nil
}

// issue asks the leader's batcher for is's number until one answers or opDeadline passes.
func (s *sim) issue(ctx context.Context, is *raftv1.SeriesIssue) (*raftv1.SeriesEntry, int, error) {
	var e *raftv1.SeriesEntry
	node, err := s.call(ctx, func(ctx context.Context, i int) error {
		res, err := s.issuers[i].Do(ctx, is)
		if err == nil {
			e, err = res.Entry, res.Err
		}
		return err
	})
	return e, node, err
}

// seriesClient numbers documents, one issue at a time. An issue that got no answer may have
// been committed, so the client asks again with its request id before any other, as
// docs/series.md tells a caller to; one still unanswered when the load ends is asked again
// once every fault is over (finishIssues).
func (s *sim) seriesClient(ctx context.Context, who string, rng *rand.Rand) {
	var pending *raftv1.SeriesIssue
	for op := 0; ctx.Err() == nil; op++ {
		think(rng, 3*time.Second)
		is := pending
		if is == nil {
			doc := sha256.Sum256(fmt.Appendf(nil, "%s document %d", who, op))
			is = &raftv1.SeriesIssue{Series: seriesName, RequestId: fmt.Sprintf("%s-%d", who, op), DocumentHash: doc[:]}
			s.h.asking(is.GetRequestId())
		}
		e, node, err := s.issue(ctx, is)
		if err != nil {
			s.h.failed()
			pending = is
			continue
		}
		pending = nil
		s.h.issued(is.GetRequestId(), e, fmt.Sprintf("%s via %s", who, nodeName(node)))
	}
	if pending != nil {
		s.h.unanswered(pending)
	}
}

// finishIssues asks again, through the healed cluster, for every issue the clients were left
// without an answer to, so that each number the journal holds has a caller who knows it.
func (s *sim) finishIssues(ctx context.Context) []string {
	var problems []string
	for _, is := range s.h.takeUnanswered() {
		e, node, err := s.issue(ctx, is)
		if err != nil {
			problems = append(problems, fmt.Sprintf("issue %s still unanswered once every fault was over: %v", is.GetRequestId(), err))
			continue
		}
		s.h.issued(is.GetRequestId(), e, "asked again via "+nodeName(node))
	}
	return problems
}

// seriesJournal reads the series' journal from rep, once its chain and numbering verify.
func seriesJournal(rep *replica) ([]*raftv1.SeriesEntry, error) {
	store, err := rep.Series()
	if err != nil {
		return nil, err
	}
	report, err := store.Verify("", seriesName)
	if err != nil {
		return nil, err
	}
	if report.Break != nil {
		return nil, fmt.Errorf("the journal of %s breaks at entry %d: %s", seriesName, report.Break.Seq, report.Break.Reason)
	}
	var entries []*raftv1.SeriesEntry
	err = store.Entries("", seriesName, 1, report.Entries, func(e *raftv1.SeriesEntry) error {
		entries = append(entries, e)
		return nil
	})
	return entries, err
}

// seriesAck is a series number answered to a request, with when the request was first asked.
type seriesAck struct {
	requestID    string
	number       int64
	asked, acked time.Time
	stamp        int64
}

// checkSeries lists every answer that breaks a gapless series' promises: a number answered to
// two requests, or to one request as two numbers; a journal that skips or repeats a number; a
// number answered that the journal lacks or gave another request; a number in the journal no
// caller was told; a request asked after another was answered that got a lower number.
func checkSeries(acks []seriesAck, journal []*raftv1.SeriesEntry, describe func(int64) string) []string {
	var problems []string
	l := ledger.New(describe)
	byRequest := map[string]seriesAck{}
	for _, a := range acks {
		if first, ok := byRequest[a.requestID]; ok {
			if first.number != a.number {
				problems = append(problems, fmt.Sprintf("one request, two numbers: %s, then %s", describe(first.stamp), describe(a.stamp)))
			}
			continue
		}
		byRequest[a.requestID] = a
		l.ID(seriesName+" number", fmt.Sprint(a.number), a.stamp)
	}
	problems = append(problems, l.Repeats()...)
	byNumber := map[int64]*raftv1.SeriesEntry{}
	for k, e := range journal {
		if want := int64(k + 1); e.GetNumber() != want || e.GetKind() != raftv1.SeriesEntryKind_SERIES_ENTRY_KIND_ISSUED {
			problems = append(problems, fmt.Sprintf("not gapless: entry %d of the journal is %s number %d, not the issue of %d", e.GetSeq(), e.GetKind(), e.GetNumber(), want))
		}
		byNumber[e.GetNumber()] = e
		if _, ok := byRequest[e.GetRequestId()]; !ok {
			problems = append(problems, fmt.Sprintf("number %d (request %s) is in the journal, but no caller was told it", e.GetNumber(), e.GetRequestId()))
		}
	}
	answered := slices.SortedFunc(maps.Values(byRequest), func(a, b seriesAck) int { return cmp.Compare(a.stamp, b.stamp) })
	for _, a := range answered {
		switch e := byNumber[a.number]; {
		case e == nil:
			problems = append(problems, fmt.Sprintf("lost: %s, but the journal ends at %d", describe(a.stamp), len(journal)))
		case e.GetRequestId() != a.requestID:
			problems = append(problems, fmt.Sprintf("lost: %s, but the journal gave %d to request %s", describe(a.stamp), a.number, e.GetRequestId()))
		}
	}
	return append(problems, outOfOrder(answered, describe)...)
}

// outOfOrder: a series numbers in commit order, so a request first asked after another was
// answered must get a higher number.
func outOfOrder(acks []seriesAck, describe func(int64) string) []string {
	var problems []string
	byAck := slices.SortedFunc(slices.Values(acks), func(a, b seriesAck) int { return a.acked.Compare(b.acked) })
	byAsk := slices.SortedFunc(slices.Values(acks), func(a, b seriesAck) int { return a.asked.Compare(b.asked) })
	var before *seriesAck
	k := 0
	for _, b := range byAsk {
		for ; k < len(byAck) && byAck[k].acked.Before(b.asked); k++ {
			if before == nil || byAck[k].number > before.number {
				before = &byAck[k]
			}
		}
		if before != nil && b.number <= before.number {
			problems = append(problems, fmt.Sprintf("out of order: %s, after %s was answered", describe(b.stamp), describe(before.stamp)))
		}
	}
	return problems
}
