package client

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/docid"
	"github.com/idnode/idnode/reason"
	"github.com/idnode/idnode/test/helpers/poll"
)

// foldServer stands in for the cluster behind an identityFold: each call reserves count
// consecutive values (fewer when short is set), and a call blocks while gate holds it.
type foldServer struct {
	mu     sync.Mutex
	next   int64
	counts []int64       // count of each call, in the order they reached the server
	reqIDs []string      // request id of each call
	short  int64         // when > 0, the first call for more than one value answers this many
	err    error         // every call fails with it when set
	gate   chan struct{} // when set, a call waits for a token before it answers
	sent   chan int64    // when set, told each call's count as it reaches the server
	round  time.Duration // when set, how long each call takes (tests in a synctest bubble)
	refuse error         // when set, noted as a refusal of each call's attempts (reason.Note) before it waits
}

func (s *foldServer) send(ctx context.Context, name string, count int64, requestID string) (docid.IdentityBlock, error) {
	reason.Note(ctx, s.refuse)
	if s.sent != nil {
		s.sent <- count
	}
	if s.round > 0 {
		time.Sleep(s.round)
	}
	if s.gate != nil {
		select {
		case <-s.gate:
		case <-ctx.Done():
			return docid.IdentityBlock{}, status.FromContextError(ctx.Err()).Err()
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.counts = append(s.counts, count)
	s.reqIDs = append(s.reqIDs, requestID)
	if s.err != nil {
		return docid.IdentityBlock{}, s.err
	}
	n := count
	if s.short > 0 && count > 1 {
		n, s.short = min(n, s.short), 0
	}
	first := s.next + 1
	s.next += n
	return docid.IdentityBlock{First: first, Last: s.next}, nil
}

// calls are the counts of the calls made, smallest first: calls in flight at once reach the
// server in any order.
func (s *foldServer) calls() []int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Sorted(slices.Values(s.counts))
}

// callers runs n callers of f.next at once and returns their values (0 for a failed call)
// and errors, by caller.
func callers(ctx context.Context, f *identityFold, n int) ([]int64, []error) {
	values, errs := make([]int64, n), make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			b, err := f.next(ctx, "orders")
			values[i], errs[i] = b.First, err
			if err == nil && b.Last != b.First {
				errs[i] = errors.New("a folded call got more than one value")
			}
		})
	}
	wg.Wait()
	return values, errs
}

// heldCallers runs n callers of f at once against srv, whose gate holds every call:
// foldMaxInFlight calls go out and hold, the other callers queue behind them. Then it lets
// released calls through the gate and returns what callers returns.
func heldCallers(t *testing.T, srv *foldServer, f *identityFold, n, released int) ([]int64, []error) {
	t.Helper()
	done := make(chan struct{})
	var values []int64
	var errs []error
	go func() {
		values, errs = callers(context.Background(), f, n)
		close(done)
	}()
	for range foldMaxInFlight {
		recv(t, srv.sent)
	}
	waitQueued(t, f, "orders", n-foldMaxInFlight)
	go func() {
		for range released {
			srv.gate <- struct{}{}
		}
	}()
	recv(t, done)
	return values, errs
}

// singles are the counts of the calls that go out first, one caller each.
func singles() []int64 {
	return slices.Repeat([]int64{1}, foldMaxInFlight)
}

// mustDistinctRun fails unless values are 1..len(values) in some order.
func mustDistinctRun(t *testing.T, values []int64) {
	t.Helper()
	got := slices.Sorted(slices.Values(values))
	for i, v := range got {
		if v != int64(i+1) {
			t.Fatalf("values %v: want each of 1..%d once", got, len(values))
		}
	}
}

func TestFoldSharesCallsAmongConcurrentCallers(t *testing.T) {
	srv := &foldServer{gate: make(chan struct{}), sent: make(chan int64, 100)}
	f := newIdentityFold(srv.send)
	const n = 50
	values, errs := heldCallers(t, srv, f, n, foldMaxInFlight+1)
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	mustDistinctRun(t, values)
	if got, want := srv.calls(), append(singles(), n-foldMaxInFlight); !slices.Equal(got, want) {
		t.Fatalf("calls with counts %v; want %v: the single ones in flight, then one for the %d callers that waited", got, want, n-foldMaxInFlight)
	}
	waitIdle(t, f, "orders") // an idle counter is dropped, so hostile names cannot pile up
}

func TestFoldNextBatchWaitsForTheCallersJustAnswered(t *testing.T) {
	// 8 callers take two values each, one after the other. The first goes alone; the other 7
	// queue during its round. When it is answered, its caller's second call joins them: 8 in
	// one batch, not 7 now and 1 a round later. The 7 that come back after that are all
	// there is: their batch goes when the wait for the eighth runs out.
	synctest.Test(t, func(t *testing.T) {
		srv := &foldServer{round: 4 * time.Millisecond}
		f := newIdentityFold(srv.send)
		const n = 8
		var mu sync.Mutex
		var values []int64
		var wg sync.WaitGroup
		for range n {
			wg.Go(func() {
				for range 2 {
					b, err := f.next(context.Background(), "orders")
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					values = append(values, b.First)
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		mustDistinctRun(t, values)
		if got, want := srv.counts, []int64{1, n, n - 1}; !slices.Equal(got, want) {
			t.Fatalf("calls with counts %v; want %v", got, want)
		}
		time.Sleep(foldRegatherMax) // the wait for the eighth runs out; the counter goes
		synctest.Wait()
		f.mu.Lock()
		defer f.mu.Unlock()
		if len(f.counters) != 0 {
			t.Fatalf("%d counters left; want the fold idle", len(f.counters))
		}
	})
}

func TestFoldWaitForCallersThatDoNotComeBackIsBounded(t *testing.T) {
	// One caller takes one value and leaves; a second arrives during that round. Its batch
	// waits a quarter of the round for the first to come back, and no longer.
	synctest.Test(t, func(t *testing.T) {
		const round = 4 * time.Millisecond
		srv := &foldServer{round: round}
		f := newIdentityFold(srv.send)
		start := time.Now()
		var second time.Time
		var wg sync.WaitGroup
		wg.Go(func() {
			if _, err := f.next(context.Background(), "orders"); err != nil {
				t.Error(err)
			}
		})
		wg.Go(func() {
			time.Sleep(round / 2)
			if _, err := f.next(context.Background(), "orders"); err != nil {
				t.Error(err)
			}
			second = time.Now()
		})
		wg.Wait()
		if got, want := second.Sub(start), round+round/4+round; got != want {
			t.Fatalf("the second caller was answered after %v; want %v: the first round, a quarter round's wait, its own round", got, want)
		}
	})
}

func TestFoldBatchesHaveTheirOwnRequestIDs(t *testing.T) {
	srv := &foldServer{}
	f := newIdentityFold(srv.send)
	for range 3 {
		if _, err := f.next(context.Background(), "orders"); err != nil {
			t.Fatal(err)
		}
	}
	ids := srv.reqIDs
	if len(ids) != 3 || ids[0] == "" || ids[0] == ids[1] || ids[1] == ids[2] || ids[0] == ids[2] {
		t.Fatalf("request ids %q: want three different ones", ids)
	}
}

func TestFoldBatchesAreBounded(t *testing.T) {
	srv := &foldServer{gate: make(chan struct{}), sent: make(chan int64, 100)}
	f := newIdentityFold(srv.send)
	n := foldMaxInFlight + foldMaxBatch + 5
	values, _ := heldCallers(t, srv, f, n, foldMaxInFlight+2)
	mustDistinctRun(t, values)
	for _, c := range srv.calls() {
		if c > foldMaxBatch {
			t.Fatalf("a call asked for %d values; want at most %d", c, foldMaxBatch)
		}
	}
}

func TestFoldRequeuesCallersAShortBlockLeftOut(t *testing.T) {
	// The first call for many answers 3 values (it stepped over claimed ones); the rest of
	// its callers go into the next call.
	srv := &foldServer{gate: make(chan struct{}), sent: make(chan int64, 100), short: 3}
	f := newIdentityFold(srv.send)
	const n = 20
	values, errs := heldCallers(t, srv, f, n, foldMaxInFlight+2)
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	mustDistinctRun(t, values)
	waited := int64(n - foldMaxInFlight)
	if got, want := srv.calls(), append(singles(), waited-3, waited); !slices.Equal(got, want) {
		t.Fatalf("calls with counts %v; want %v: one more for the %d callers the short block left out", got, want, waited-3)
	}
}

func TestFoldErrorReachesEveryCallerOfTheBatch(t *testing.T) {
	refused := status.Error(codes.InvalidArgument, "bad name")
	srv := &foldServer{err: refused}
	f := newIdentityFold(srv.send)
	_, errs := callers(context.Background(), f, 10)
	for _, err := range errs {
		if !errors.Is(err, refused) {
			t.Fatalf("caller got %v; want %v", err, refused)
		}
	}
}

func TestFoldCallerThatGivesUpLeavesTheQueue(t *testing.T) {
	srv := &foldServer{gate: make(chan struct{}), sent: make(chan int64, 100)}
	f := newIdentityFold(srv.send)
	done := make(chan struct{})
	go func() {
		callers(context.Background(), f, foldMaxInFlight) // the calls in flight
		close(done)
	}()
	for range foldMaxInFlight {
		recv(t, srv.sent)
	}
	ctx, cancel := context.WithCancel(context.Background())
	left := make(chan error)
	go func() {
		_, err := f.next(ctx, "orders")
		left <- err
	}()
	waitQueued(t, f, "orders", 1)
	cancel()
	if err := recv(t, left); status.Code(err) != codes.Canceled {
		t.Fatalf("a caller cancelled while queued got %v; want Canceled", err)
	}
	if q := queued(f, "orders"); q != 0 {
		t.Fatalf("%d callers still queued after the only one left", q)
	}
	for range foldMaxInFlight {
		srv.gate <- struct{}{}
	}
	recv(t, done)
	if got := srv.calls(); len(got) != foldMaxInFlight {
		t.Fatalf("calls with counts %v; want only the %d in flight (nobody waits for another)", got, foldMaxInFlight)
	}
}

// A caller who gives up while its batch, or the batch ahead of it, is being refused gets its
// context's code with that refusal as the reason, whether it was in the batch or queued.
func TestFoldCallerThatGivesUpKeepsTheRefusal(t *testing.T) {
	srv := &foldServer{gate: make(chan struct{}), sent: make(chan int64, 100), refuse: noQuorum}
	f := newIdentityFold(srv.send)
	inBatch, cancelInBatch := context.WithCancel(context.Background())
	queuedCtx, cancelQueued := context.WithCancel(context.Background())
	left := make(chan error)
	go func() {
		_, err := f.next(inBatch, "orders")
		left <- err
	}()
	recv(t, srv.sent) // the batch was refused once and waits for its next answer
	go func() {
		_, err := f.next(queuedCtx, "orders")
		left <- err
	}()
	waitQueued(t, f, "orders", 1)
	for _, cancel := range []context.CancelFunc{cancelQueued, cancelInBatch} {
		cancel()
		if err := recv(t, left); status.Code(err) != codes.Canceled || reason.Of(err) != reason.NoQuorum {
			t.Errorf("a caller who gave up got %v/%q: %v; want Canceled with NO_QUORUM", status.Code(err), reason.Of(err), err)
		}
	}
	waitIdle(t, f, "orders")
}

func TestFoldBatchStopsWhenEveryCallerLeft(t *testing.T) {
	srv := &foldServer{gate: make(chan struct{}), sent: make(chan int64, 100)}
	f := newIdentityFold(srv.send)
	ctx, cancel := context.WithCancel(context.Background())
	left := make(chan error)
	go func() {
		_, err := f.next(ctx, "orders")
		left <- err
	}()
	recv(t, srv.sent)
	cancel()
	if err := recv(t, left); status.Code(err) != codes.Canceled {
		t.Fatalf("the caller got %v; want Canceled", err)
	}
	// The call, which nobody waits for any more, ends without a token from the gate.
	waitIdle(t, f, "orders")
}

// The short caller's 50 ms must not run out before the call after the first answer takes it
// with the patient caller: in real time a loaded machine let it (the call asked for 1 value,
// in a flake finder's run at a load of 25); in a bubble the clock moves only once every
// goroutine waits.
func TestFoldOtherCallersOutliveAnEarlierDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := &foldServer{gate: make(chan struct{}), sent: make(chan int64, 100)}
		f := newIdentityFold(srv.send)
		hold := make(chan struct{})
		go func() {
			callers(context.Background(), f, foldMaxInFlight) // the calls in flight
			close(hold)
		}()
		for range foldMaxInFlight {
			recv(t, srv.sent)
		}
		short, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		results := make(chan error, 2)
		go func() {
			_, err := f.next(short, "orders")
			results <- err
		}()
		waitQueued(t, f, "orders", 1)
		var patient int64
		go func() {
			b, err := f.next(context.Background(), "orders")
			patient = b.First
			results <- err
		}()
		waitQueued(t, f, "orders", 2)
		srv.gate <- struct{}{} // a call in flight answers; the next takes both queued
		if got := recv(t, srv.sent); got != 2 {
			t.Fatalf("the call after it asked for %d values; want 2", got)
		}
		if err := recv(t, results); status.Code(err) != codes.DeadlineExceeded {
			t.Fatalf("the caller with the short deadline got %v; want DeadlineExceeded", err)
		}
		// That call stopped at the deadline; the patient caller goes into the next one.
		if got := recv(t, srv.sent); got != 1 {
			t.Fatalf("the next call asked for %d values; want 1, for the patient caller", got)
		}
		go func() {
			for range foldMaxInFlight { // the rest of the first calls, and the patient caller's
				srv.gate <- struct{}{}
			}
		}()
		if err := recv(t, results); err != nil {
			t.Fatalf("the patient caller got %v; want a value", err)
		}
		recv(t, hold)
		if patient == 0 {
			t.Fatal("the patient caller got no value")
		}
	})
}

// recv is the next value from ch (or its closing), failing the test after 10 s instead of
// hanging it when the fold never gets there.
func recv[T any](t *testing.T, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatal("nothing came within 10 s")
		panic("unreachable")
	}
}

// queued is how many callers of name wait for a batch.
func queued(f *identityFold, name string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	if c := f.counters[name]; c != nil {
		return len(c.queue)
	}
	return 0
}

func waitQueued(t *testing.T, f *identityFold, name string, n int) {
	t.Helper()
	poll.Until(t, "callers queued", 10*time.Second, time.Millisecond, func() error {
		if q := queued(f, name); q != n {
			return fmt.Errorf("%d queued, want %d", q, n)
		}
		return nil
	})
}

func waitIdle(t *testing.T, f *identityFold, name string) {
	t.Helper()
	poll.Until(t, "the fold idle", 10*time.Second, time.Millisecond, func() error {
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.counters[name] != nil {
			return errors.New("the counter is still kept")
		}
		return nil
	})
}
