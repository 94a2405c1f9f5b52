package chaostest

// The chaos suite's fiscal series: issuers number documents in three series through
// all three nodes while the leader is cut off the Raft network and, once healed, killed. Each
// issue has its own request_id and is retried with it (on UNAVAILABLE, OUTCOME_UNKNOWN or a
// deadline) on the next node, so a number committed before its answer was lost is found again,
// never taken twice. Afterwards every journal must be the numbering the callers were told:
// each number of a period, from 1 to the last, issued once or skipped once, in commit order,
// every void of an issued number after its issue, the hash chain intact (VerifySeries), and
// every request_id that got an answer answering the same entry again.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
)

const (
	chaosSeriesWorkers   = 6                     // two per series, homes on different nodes
	chaosSeriesPace      = 30 * time.Millisecond // between a worker's calls
	chaosSeriesVoidEvery = 5                     // a worker voids every 5th number it was issued
	chaosSeriesSkipEvery = 7                     // in the journaled series, every 7th call skips the next number
	chaosSeriesBudget    = 20 * time.Second      // one logical series call, all retries included
	chaosSeriesMaxOps    = 5_000                 // per worker and schedule: a bound, never reached in practice
	chaosProgressSeries  = 30                    // numbers issued per load phase
	chaosSeriesReasks    = 16                    // goroutines asking every answered request_id again
)

// ChaosSeries are the series of the schedule: gapless by year, gapless without periods, and
// one whose policy allows journaled gaps, by month.
var ChaosSeries = []*idnodev1.CreateSeriesRequest{
	{Name: "INV", Format: "INV-{year}-{n:06}", Period: idnodev1.SeriesPeriod_SERIES_PERIOD_YEAR},
	{Name: "ord", Format: "ORD-{n:08}"},
	{Name: "Rcpt", Format: "RC-{year}{month}-{n:05}", Period: idnodev1.SeriesPeriod_SERIES_PERIOD_MONTH,
		Policy: idnodev1.SeriesPolicy_SERIES_POLICY_GAPS_ALLOWED_JOURNALED},
}

// SeriesProgress waits until the series clients have been issued chaosProgressSeries more
// numbers, without waiting for the other clients' phase (the schedule's budget is short).
func (r *ChaosRun) SeriesProgress(phase string) {
	r.T.Helper()
	start := r.Load.counts().series
	began := time.Now()
	e2etest.Eventually(r.T, chaosProgressWait, "series load phase "+phase, func() error {
		if errs := r.Load.errors(); len(errs) > 0 {
			r.T.Fatalf("series load phase %s: a client got an unexpected answer: %v", phase, errors.Join(errs...))
		}
		if got := r.Load.counts().series - start; got < chaosProgressSeries {
			return fmt.Errorf("%d of %d series numbers issued", got, chaosProgressSeries)
		}
		return nil
	})
	r.T.Logf("series load phase %q: %v (totals: %v)", phase, time.Since(began).Round(10*time.Millisecond), r.Load.counts())
}

// CreateSeries creates chaosSeries on the fresh cluster (a retry with the request_id answers
// the series created).
func (r *ChaosRun) CreateSeries() {
	r.T.Helper()
	for _, s := range ChaosSeries {
		req := &idnodev1.CreateSeriesRequest{Name: s.GetName(), Format: s.GetFormat(), Period: s.GetPeriod(), Policy: s.GetPolicy(), RequestId: r.c.requestID()}
		err := r.c.onNodes(0, ChaosRecoverWait, func(ctx context.Context, tag string, _ int) error {
			_, err := r.c.series[tag].CreateSeries(ctx, req)
			return err
		})
		if err != nil {
			r.T.Fatalf("CreateSeries(%s): %v", s.GetName(), err)
		}
	}
}

// SeriesMinority asks the isolated node, and only it, for a number: it must refuse with
// UNAVAILABLE. Its request_id stays unanswered: an old leader may have appended it, and
// whether it was committed is for the journal to say.
func (r *ChaosRun) SeriesMinority(tag string) {
	r.T.Helper()
	sl := r.Load.series
	req := sl.issueRequest(ChaosSeries[0].GetName(), r.c.requestID(), -1)
	begin := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), chaosProbeDeadline)
	resp, err := r.c.series[tag].Issue(ctx, req)
	cancel()
	took := time.Since(begin)
	sl.unanswered(req)
	if err == nil {
		r.T.Fatalf("node %s, without a majority, issued %s after %v", tag, resp.GetEntry().GetId(), took)
	}
	if status.Code(err) != codes.Unavailable {
		r.T.Fatalf("node %s, without a majority, refused Issue after %v with %v; want UNAVAILABLE", tag, took, err)
	}
	sl.minorityMs.Store(took.Milliseconds())
	r.T.Logf("node %s without a majority: Issue refused in %d ms (%v)", tag, took.Milliseconds(), err)
}

// seriesLoad is the series clients of a schedule and what they were told.
type seriesLoad struct {
	ld *chaosLoad

	issued, voided, skipped atomic.Int64 // calls answered
	retried                 atomic.Int64 // attempts after a call's first
	refusedVoids            atomic.Int64 // voids that lost a race with another's skip (journaled series only)
	minorityMs              atomic.Int64

	mu sync.Mutex
	// answers holds every entry a caller was told, by request_id; requests the calls, so
	// that each can be asked again; pending the issues that never got an answer.
	answers  map[string]*idnodev1.SeriesEntry
	requests map[string]any
	pending  []*idnodev1.IssueRequest
}

// StartSeries adds the series workers to the load. Worker w issues into chaosSeries[w%3]
// from its home node, voids every chaosSeriesVoidEvery-th number it was issued, and in the
// journaled series skips the next number every chaosSeriesSkipEvery-th call.
func (ld *chaosLoad) StartSeries() {
	sl := &seriesLoad{ld: ld, answers: map[string]*idnodev1.SeriesEntry{}, requests: map[string]any{}}
	ld.series = sl
	for w := range chaosSeriesWorkers {
		def := ChaosSeries[w%len(ChaosSeries)]
		home := (w + w/len(ChaosSeries)) % len(ld.c.cluster.nodes)
		journaled := def.GetPolicy() == idnodev1.SeriesPolicy_SERIES_POLICY_GAPS_ALLOWED_JOURNALED
		ld.wg.Go(func() {
			mine := 0
			for i := 0; i < chaosSeriesMaxOps && !ld.stopped(); i++ {
				var err error
				if journaled && i%chaosSeriesSkipEvery == chaosSeriesSkipEvery-1 {
					err = sl.skip(def.GetName(), w, home)
				} else {
					var e *idnodev1.SeriesEntry
					if e, err = sl.issue(def.GetName(), w, home); err == nil {
						if mine++; mine%chaosSeriesVoidEvery == 0 {
							err = sl.void(e, fmt.Sprintf("cancelled by worker %d", w), home, journaled)
						}
					}
				}
				switch {
				case err == nil:
				case errors.Is(err, errChaosGaveUp):
					ld.gaveUp.Add(1)
				default:
					ld.fail(fmt.Errorf("series worker %d (%s): %w", w, def.GetName(), err))
				}
				if !ld.pause(chaosSeriesPace) {
					return
				}
			}
		})
	}
}

// issueRequest is the request of one document: its hash and fields follow from its id.
func (sl *seriesLoad) issueRequest(series, requestID string, worker int) *idnodev1.IssueRequest {
	sum := sha256.Sum256([]byte(requestID))
	return &idnodev1.IssueRequest{Series: series, RequestId: requestID, DocumentHash: hex.EncodeToString(sum[:8]),
		Fields: []*idnodev1.SeriesField{{Key: "worker", Value: fmt.Sprint(worker)}}}
}

// call makes one logical series call on the nodes from home, counting retried attempts.
func (sl *seriesLoad) call(home int, attempt func(ctx context.Context, tag string) error) error {
	return sl.ld.c.onNodes(home, chaosSeriesBudget, func(ctx context.Context, tag string, try int) error {
		if try > 0 {
			sl.retried.Add(1)
		}
		return attempt(ctx, tag)
	})
}

// issue issues the next number of series to a new document and records the answer, or the
// request as pending when no node answered.
func (sl *seriesLoad) issue(series string, worker, home int) (*idnodev1.SeriesEntry, error) {
	req := sl.issueRequest(series, sl.ld.c.requestID(), worker)
	var e *idnodev1.SeriesEntry
	err := sl.call(home, func(ctx context.Context, tag string) error {
		resp, err := sl.ld.c.series[tag].Issue(ctx, req)
		e = resp.GetEntry()
		return err
	})
	if errors.Is(err, errChaosGaveUp) {
		sl.unanswered(req)
	}
	if err != nil {
		return nil, fmt.Errorf("Issue(%s, %s): %w", series, req.GetRequestId(), err)
	}
	if e.GetKind() != idnodev1.SeriesEntryKind_SERIES_ENTRY_KIND_ISSUED || e.GetRequestId() != req.GetRequestId() ||
		e.GetNumber() < 1 || e.GetSeq() < 1 || !strings.EqualFold(e.GetSeries(), series) || e.GetDocumentHash() != req.GetDocumentHash() {
		return nil, fmt.Errorf("Issue(%s, %s) answered %v", series, req.GetRequestId(), e)
	}
	sl.answered(req.GetRequestId(), req, e)
	sl.issued.Add(1)
	return e, nil
}

// void voids an issued number. In the journaled series another worker's skip may have voided
// it first (it read the last number before this one was issued): ALREADY_VOIDED is allowed
// there, and the journal must then show the number voided.
func (sl *seriesLoad) void(issued *idnodev1.SeriesEntry, why string, home int, journaled bool) error {
	req := &idnodev1.VoidRequest{Series: issued.GetSeries(), Period: issued.GetPeriod(), Number: issued.GetNumber(), Reason: why, RequestId: sl.ld.c.requestID()}
	var e *idnodev1.SeriesEntry
	err := sl.call(home, func(ctx context.Context, tag string) error {
		resp, err := sl.ld.c.series[tag].Void(ctx, req)
		e = resp.GetEntry()
		return err
	})
	if journaled && status.Code(err) == codes.FailedPrecondition && strings.Contains(err.Error(), "already voided") {
		sl.refusedVoids.Add(1)
		return nil
	}
	if err != nil {
		return fmt.Errorf("Void(%s): %w", issued.GetId(), err)
	}
	if e.GetKind() != idnodev1.SeriesEntryKind_SERIES_ENTRY_KIND_VOIDED || e.GetId() != issued.GetId() || e.GetSeq() <= issued.GetSeq() {
		return fmt.Errorf("Void(%s, entry %d) answered %v", issued.GetId(), issued.GetSeq(), e)
	}
	sl.answered(req.GetRequestId(), req, e)
	sl.voided.Add(1)
	return nil
}

// skip voids the next number of a journaled series: the one after the last the series
// reports. Another worker may issue it first (the void then voids an issued number) or skip
// it first (ALREADY_VOIDED), or the month may turn (NOT_ISSUED): a refusal of those kinds is
// a lost race, not a failure.
func (sl *seriesLoad) skip(series string, worker, home int) error {
	var head *idnodev1.Series
	err := sl.call(home, func(ctx context.Context, tag string) error {
		resp, err := sl.ld.c.series[tag].ListSeries(ctx, &idnodev1.ListSeriesRequest{})
		for _, s := range resp.GetSeries() {
			if strings.EqualFold(s.GetName(), series) {
				head = s
			}
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("ListSeries: %w", err)
	}
	if head == nil || head.GetCurrentPeriod() == "" {
		return nil // nothing issued yet: the period of the next number is not known
	}
	req := &idnodev1.VoidRequest{Series: series, Period: head.GetCurrentPeriod(), Number: head.GetLastNumber() + 1,
		Reason: fmt.Sprintf("skipped by worker %d", worker), RequestId: sl.ld.c.requestID()}
	var e *idnodev1.SeriesEntry
	err = sl.call(home, func(ctx context.Context, tag string) error {
		resp, err := sl.ld.c.series[tag].Void(ctx, req)
		e = resp.GetEntry()
		return err
	})
	if status.Code(err) == codes.FailedPrecondition {
		sl.refusedVoids.Add(1)
		return nil
	}
	if err != nil {
		return fmt.Errorf("Void(%s, next number %d): %w", series, req.GetNumber(), err)
	}
	if e.GetKind() != idnodev1.SeriesEntryKind_SERIES_ENTRY_KIND_VOIDED || e.GetNumber() != req.GetNumber() || e.GetPeriod() != req.GetPeriod() {
		return fmt.Errorf("Void(%s, next number %d) answered %v", series, req.GetNumber(), e)
	}
	sl.answered(req.GetRequestId(), req, e)
	sl.skipped.Add(1)
	return nil
}

func (sl *seriesLoad) answered(requestID string, req any, e *idnodev1.SeriesEntry) {
	sl.mu.Lock()
	defer sl.mu.Unlock()
	sl.answers[requestID], sl.requests[requestID] = e, req
}

func (sl *seriesLoad) unanswered(req *idnodev1.IssueRequest) {
	sl.mu.Lock()
	defer sl.mu.Unlock()
	sl.pending = append(sl.pending, req)
}

// SeriesCheck is what verifySeries found, for the schedule's line.
type SeriesCheck struct {
	issued, voided, skipped int // entries in the journals
	Duplicates, Gaps        int
	pendingCommitted        int // unanswered issues whose request_id is in a journal
	verify                  string
}

// verifySeries runs the checks of the schedule on the healed cluster with the clients stopped
// and returns the problems found; it sets the schedule's note.
func (r *ChaosRun) verifySeries() []string {
	sl := r.Load.series
	var problems []string
	fail := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	sl.mu.Lock()
	defer sl.mu.Unlock()

	// Every request_id that got an answer answers the same entry again (before the journals
	// are read, so they also show that asking again took no number).
	began := time.Now()
	for _, err := range sl.reask() {
		fail("%v", err)
	}
	r.T.Logf("series: %d answered calls asked again in %v", len(sl.answers), time.Since(began).Round(10*time.Millisecond))
	began = time.Now()
	check := SeriesCheck{verify: "ok"}
	bySeries := map[string]map[string]*idnodev1.SeriesEntry{} // series (lower case) → request_id → entry
	for _, def := range ChaosSeries {
		name := strings.ToLower(def.GetName())
		entries, err := r.journal(def.GetName())
		if err != nil {
			fail("Journal(%s) after recovery: %v", def.GetName(), err)
			check.verify = "failed"
			continue
		}
		bySeries[name] = map[string]*idnodev1.SeriesEntry{}
		for _, p := range CheckJournal(def, entries, &check) {
			fail("series %s: %s", def.GetName(), p)
		}
		for _, e := range entries {
			if _, twice := bySeries[name][e.GetRequestId()]; twice {
				check.Duplicates++
				fail("series %s: request_id %s made two entries (the second %d)", def.GetName(), e.GetRequestId(), e.GetSeq())
			}
			bySeries[name][e.GetRequestId()] = e
		}
		if err := r.verifyHead(def, entries); err != nil {
			fail("%v", err)
			check.verify = "failed"
		}
	}
	r.T.Logf("series: journals read and checked in %v", time.Since(began).Round(10*time.Millisecond))
	for id, told := range sl.answers {
		got := bySeries[strings.ToLower(told.GetSeries())][id]
		if got == nil || got.GetSeq() != told.GetSeq() || got.GetHash() != told.GetHash() || got.GetId() != told.GetId() {
			fail("request %s was answered entry %d (%s); the journal holds %v", id, told.GetSeq(), told.GetId(), got)
		}
	}
	for _, req := range sl.pending {
		if bySeries[strings.ToLower(req.GetSeries())][req.GetRequestId()] != nil {
			check.pendingCommitted++
		}
	}
	r.Note = fmt.Sprintf("series={issued=%d voided=%d skipped=%d answered=%d retried=%d unanswered=%d(committed %d) lost_races=%d duplicates=%d gaps=%d verify=%s minority_issue_ms=%d}",
		check.issued, check.voided, check.skipped, len(sl.answers), sl.retried.Load(), len(sl.pending), check.pendingCommitted,
		sl.refusedVoids.Load(), check.Duplicates, check.Gaps, check.verify, sl.minorityMs.Load())
	if check.issued == 0 || check.voided == 0 || check.skipped == 0 {
		fail("too little series load to check anything: %s", r.Note)
	}
	return problems
}

// reask asks again, with its request_id and the same request, every call that got an answer:
// each must answer the entry it answered then.
func (sl *seriesLoad) reask() []error {
	ids := make(chan string)
	var mu sync.Mutex
	var errs []error
	var wg sync.WaitGroup
	for w := range chaosSeriesReasks {
		wg.Go(func() {
			for id := range ids {
				var e *idnodev1.SeriesEntry
				err := sl.call(w%len(sl.ld.c.cluster.nodes), func(ctx context.Context, tag string) error {
					var err error
					switch req := sl.requests[id].(type) {
					case *idnodev1.IssueRequest:
						var resp *idnodev1.IssueResponse
						resp, err = sl.ld.c.series[tag].Issue(ctx, req)
						e = resp.GetEntry()
					case *idnodev1.VoidRequest:
						var resp *idnodev1.VoidResponse
						resp, err = sl.ld.c.series[tag].Void(ctx, req)
						e = resp.GetEntry()
					}
					return err
				})
				told := sl.answers[id]
				if err == nil && (e.GetSeq() != told.GetSeq() || e.GetNumber() != told.GetNumber() || e.GetPeriod() != told.GetPeriod() || e.GetHash() != told.GetHash()) {
					err = fmt.Errorf("answered entry %d (%s), but entry %d (%s) before", e.GetSeq(), e.GetId(), told.GetSeq(), told.GetId())
				}
				if err != nil {
					mu.Lock()
					errs = append(errs, fmt.Errorf("request %s asked again: %w", id, err))
					mu.Unlock()
				}
			}
		})
	}
	for id := range sl.answers {
		ids <- id
	}
	close(ids)
	wg.Wait()
	return errs
}

// journal reads a series' whole journal through any node, from the start again if a stream
// breaks.
func (r *ChaosRun) journal(series string) ([]*idnodev1.SeriesEntry, error) {
	var out []*idnodev1.SeriesEntry
	// A long journal takes more than one attempt's time: the stream gets its own.
	err := r.c.onNodes(0, ChaosRecoverWait, func(_ context.Context, tag string, _ int) error {
		ctx, cancel := context.WithTimeout(context.Background(), ChaosRecoverWait)
		defer cancel()
		stream, err := r.c.series[tag].Journal(ctx, &idnodev1.JournalRequest{Series: series})
		if err != nil {
			return err
		}
		out = out[:0]
		for {
			e, err := stream.Recv()
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return err
			}
			out = append(out, e)
		}
	})
	return out, err
}

// CheckJournal checks one series' entries against the numbering rules and counts them into
// c: seq 1, 2, 3…, chained; per period each number, from 1, taken once, in seq order, by an
// issue or (journaled policy only) a skip; a void of an issued number after its issue, once;
// periods and time never going back.
func CheckJournal(def *idnodev1.CreateSeriesRequest, entries []*idnodev1.SeriesEntry, c *SeriesCheck) []string {
	var problems []string
	fail := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	journaled := def.GetPolicy() == idnodev1.SeriesPolicy_SERIES_POLICY_GAPS_ALLOWED_JOURNALED
	type number struct{ issued, voided uint64 } // seqs
	numbers := map[string]map[int64]*number{}   // period → number → its entries
	last := map[string]int64{}                  // period → last number taken
	var period, prevHash string
	var timeMs int64
	for i, e := range entries {
		if e.GetSeq() != uint64(i+1) || e.GetPrevHash() != prevHash || !strings.EqualFold(e.GetSeries(), def.GetName()) {
			fail("entry %d of the stream: seq %d, prev_hash %s, series %s; want seq %d chained to %s", i, e.GetSeq(), e.GetPrevHash(), e.GetSeries(), i+1, prevHash)
		}
		prevHash = e.GetHash()
		if e.GetTimeMs() < timeMs || e.GetPeriod() < period {
			fail("entry %d: time %d, period %q after time %d, period %q: went back", e.GetSeq(), e.GetTimeMs(), e.GetPeriod(), timeMs, period)
		}
		timeMs, period = e.GetTimeMs(), e.GetPeriod()
		if numbers[period] == nil {
			numbers[period] = map[int64]*number{}
		}
		n := numbers[period][e.GetNumber()]
		next := last[period] + 1
		switch e.GetKind() {
		case idnodev1.SeriesEntryKind_SERIES_ENTRY_KIND_ISSUED:
			c.issued++
			switch {
			case n != nil:
				c.Duplicates++
				fail("entry %d issues %s, which entry %d took", e.GetSeq(), e.GetId(), max(n.issued, n.voided))
			case e.GetNumber() != next:
				c.Gaps++
				fail("entry %d issues number %d of period %q; the next was %d", e.GetSeq(), e.GetNumber(), period, next)
			}
			numbers[period][e.GetNumber()] = &number{issued: e.GetSeq()}
		case idnodev1.SeriesEntryKind_SERIES_ENTRY_KIND_VOIDED:
			switch {
			case n == nil && e.GetNumber() == next && journaled:
				c.skipped++
				numbers[period][e.GetNumber()] = &number{voided: e.GetSeq()}
			case n == nil && e.GetNumber() == next:
				c.Gaps++
				fail("entry %d skips %s in a gapless series", e.GetSeq(), e.GetId())
			case n == nil:
				c.Gaps++
				fail("entry %d voids number %d of period %q, never issued (the next was %d)", e.GetSeq(), e.GetNumber(), period, next)
			case n.issued == 0 || n.voided != 0:
				c.Duplicates++
				fail("entry %d voids %s again (issued by entry %d, voided by entry %d)", e.GetSeq(), e.GetId(), n.issued, n.voided)
			default:
				c.voided++
				n.voided = e.GetSeq()
			}
		default:
			fail("entry %d has kind %v", e.GetSeq(), e.GetKind())
		}
		last[period] = max(last[period], e.GetNumber())
	}
	return problems
}

// verifyHead checks that VerifySeries passes over the whole journal and that the series'
// head agrees with the entries read.
func (r *ChaosRun) verifyHead(def *idnodev1.CreateSeriesRequest, entries []*idnodev1.SeriesEntry) error {
	var v *idnodev1.VerifySeriesResponse
	var list *idnodev1.ListSeriesResponse
	err := r.c.onNodes(0, ChaosRecoverWait, func(ctx context.Context, tag string, _ int) (err error) {
		if v, err = r.c.series[tag].VerifySeries(ctx, &idnodev1.VerifySeriesRequest{Series: def.GetName()}); err != nil {
			return err
		}
		list, err = r.c.series[tag].ListSeries(ctx, &idnodev1.ListSeriesRequest{})
		return err
	})
	if err != nil {
		return fmt.Errorf("series %s: VerifySeries, ListSeries after recovery: %w", def.GetName(), err)
	}
	if !v.GetOk() || v.GetEntries() != uint64(len(entries)) {
		return fmt.Errorf("series %s: VerifySeries = %v; want ok over the %d entries read", def.GetName(), v, len(entries))
	}
	for _, s := range list.GetSeries() {
		if !strings.EqualFold(s.GetName(), def.GetName()) {
			continue
		}
		var head string
		if len(entries) > 0 {
			head = entries[len(entries)-1].GetHash()
		}
		if s.GetEntries() != uint64(len(entries)) || s.GetHeadHash() != head || s.GetIssued()+s.GetVoided() != s.GetEntries() {
			return fmt.Errorf("series %s: head %v; the journal read has %d entries, the last hashed %s", def.GetName(), s, len(entries), head)
		}
		return nil
	}
	return fmt.Errorf("series %s: not in ListSeries after recovery", def.GetName())
}
