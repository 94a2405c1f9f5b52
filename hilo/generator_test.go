package hilo

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/docid"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

const testTimeout = 10 * time.Second // every wait in these tests is bounded by it

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

func newGen(t *testing.T, src RangeSource, tag string, opts ...Option) *Generator {
	t.Helper()
	g, err := NewGenerator(src, tag, opts...)
	if err != nil {
		t.Fatalf("NewGenerator(%q): %v", tag, err)
	}
	t.Cleanup(func() { _ = g.Close(context.Background()) })
	return g
}

// fetched makes g signal on the returned channel after each fetch outcome is installed.
func fetched(g *Generator) <-chan struct{} {
	ch := make(chan struct{}, 1000)
	g.afterFetch = func() { ch <- struct{}{} }
	return ch
}

func waitFetched(t *testing.T, ch <-chan struct{}) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(testTimeout):
		t.Fatalf("no fetch completed within %v", testTimeout)
	}
}

// stillClock stops g's clock before its first call: no time passes, so fetches take none and no
// range runs out too soon for a later fetch (pace.go); the prefetch then starts at the fixed
// fraction of the range alone.
func stillClock(g *Generator) {
	at := time.Unix(1_000_000, 0)
	g.now = func() time.Time { return at }
}

// number parses "tag/17-A" and returns 17.
func number(t testing.TB, id, tag string) int64 {
	t.Helper()
	rest, ok := strings.CutPrefix(id, tag+"/")
	if !ok {
		t.Fatalf("ID %q does not start with %q", id, tag+"/")
	}
	num, ok := strings.CutSuffix(rest, "-A")
	if !ok {
		t.Fatalf("ID %q does not end with -A", id)
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 1 {
		t.Fatalf("ID %q: number %q: %v", id, num, err)
	}
	return n
}

func mustNext(t testing.TB, ctx context.Context, g *Generator) string {
	t.Helper()
	id, err := g.NextID(ctx)
	if err != nil {
		t.Fatalf("NextID: %v", err)
	}
	return id
}

// One caller: the IDs are orders/1-A, orders/2-A, … in order, across many ranges.
func TestGeneratorSequentialNoClash(t *testing.T) {
	src := newFakeSource()
	g := newGen(t, src, "orders")
	ctx := testCtx(t)
	const n = 100_000
	for i := int64(1); i <= n; i++ {
		id := mustNext(t, ctx, g)
		if want := docid.HiLoID("orders/", i, "A"); id != want {
			t.Fatalf("ID %d = %q, want %q", i, id, want)
		}
	}
	if st := g.Stats(); st.Fetches < 10 {
		t.Errorf("%d IDs came from %d ranges; want ranges of growing size, at least 10", n, st.Fetches)
	}
}

// 100 goroutines × 2000 IDs: no ID twice, and the numbers are exactly 1…200000 (one client:
// its ranges are consecutive and it used every number of every range it finished).
func TestGeneratorParallelNoClash(t *testing.T) {
	const workers, each = 100, 2000
	src := newFakeSource()
	g := newGen(t, src, "orders")
	ctx := testCtx(t)
	got := make([][]string, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			ids := make([]string, 0, each)
			for range each {
				id, err := g.NextID(ctx)
				if err != nil {
					errs[w] = err
					return
				}
				ids = append(ids, id)
			}
			got[w] = ids
		})
	}
	wg.Wait()
	seen := make([]bool, workers*each+1)
	for w := range workers {
		if errs[w] != nil {
			t.Fatalf("worker %d: %v", w, errs[w])
		}
		for _, id := range got[w] {
			n := number(t, id, "orders")
			if n >= int64(len(seen)) {
				t.Fatalf("ID %q: number above %d although only %d IDs were taken", id, len(seen)-1, workers*each)
			}
			if seen[n] {
				t.Fatalf("ID %q handed out twice", id)
			}
			seen[n] = true
		}
	}
	for n := 1; n < len(seen); n++ {
		if !seen[n] {
			t.Fatalf("orders/%d-A never handed out, but %d IDs were", n, workers*each)
		}
	}
	if p := src.peakInflight(); p != 1 {
		t.Errorf("%d range fetches ran at once, want at most 1 per generator", p)
	}
	t.Logf("stats: %+v", g.Stats())
}

// The next range is fetched when the current one is 80% used (when the pace does not start it
// earlier), in the background: the callers keep taking the rest of the current range while
// that fetch is still on the network, and none of them waits.
func TestGeneratorPrefetchBeforeExhaustion(t *testing.T) {
	src := newFakeSource()
	release := make(chan struct{})
	calledAt := make(chan int, 10)
	src.gate = func(call int, _ *idnodev1.NextHiLoRequest) error {
		calledAt <- call
		if call == 2 {
			select {
			case <-release:
			case <-time.After(testTimeout):
				return status.Error(codes.Unavailable, "test never released the fetch")
			}
		}
		return nil
	}
	g := newGen(t, src, "orders")
	stillClock(g)
	done := fetched(g)
	ctx := testCtx(t)

	mustNext(t, ctx, g) // the first call waits for the first range: 1…32
	<-calledAt
	waitFetched(t, done)
	if st := g.Stats(); st.Waits != 1 || st.RangeSize != 32 {
		t.Fatalf("after the first ID: %+v, want one wait and a range of 32", st)
	}
	trigger := int64(25) // 80% of 32, rounded down
	for i := int64(2); i < trigger; i++ {
		mustNext(t, ctx, g)
	}
	if c := src.callCount(); c != 1 {
		t.Fatalf("%d fetches after %d of 32 IDs, want 1 (no prefetch before %d)", c, trigger-1, trigger)
	}
	mustNext(t, ctx, g) // number 25: starts the prefetch
	select {
	case call := <-calledAt:
		if call != 2 {
			t.Fatalf("fetch #%d started, want #2", call)
		}
	case <-time.After(testTimeout):
		t.Fatalf("taking ID %d of 32 did not start a fetch within %v", trigger, testTimeout)
	}
	// The fetch is blocked "on the network"; the rest of the range is still served.
	for i := trigger + 1; i <= 32; i++ {
		if id := mustNext(t, ctx, g); number(t, id, "orders") != i {
			t.Fatalf("ID %q, want number %d", id, i)
		}
	}
	if st := g.Stats(); st.Waits != 1 || src.callCount() != 2 {
		t.Fatalf("while the prefetch was in flight: %+v, %d calls; want no new wait and exactly one fetch in flight", st, src.callCount())
	}
	close(release)
	waitFetched(t, done)
	for i := int64(33); i <= 96; i++ { // the next range, 33…96, already there
		if id := mustNext(t, ctx, g); number(t, id, "orders") != i {
			t.Fatalf("ID %q, want number %d", id, i)
		}
	}
	if st := g.Stats(); st.Waits != 1 {
		t.Fatalf("callers waited %d times, want only the first call to wait", st.Waits)
	}
}

// With an instant source, many callers taking IDs fast do not wait for the network once the
// ranges have grown: the next range is there before the current one runs out.
func TestGeneratorCallersRarelyWait(t *testing.T) {
	src := newFakeSource()
	g := newGen(t, src, "orders")
	ctx := testCtx(t)
	take := func(perWorker int) {
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				for range perWorker {
					if _, err := g.NextID(ctx); err != nil {
						t.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
	}
	take(100_000) // ranges grow from 32 to 524,288; the first few may run out before the next arrives
	warm := g.Stats()
	take(200_000)
	st := g.Stats()
	t.Logf("after warm-up: %+v; at the end: %+v", warm, st)
	if st.Fetches-warm.Fetches < 1 {
		t.Fatalf("no fetch after the warm-up: %+v", st)
	}
	// Each of these fetches had 20% of a range of 2^19 or more IDs to arrive in. One stall is
	// tolerated for a machine busy with other work.
	if stalls := st.Stalls - warm.Stalls; stalls > 1 {
		t.Errorf("callers waited for %d of %d fetches after the warm-up: the prefetch does not keep ahead", stalls, st.Fetches-warm.Fetches)
	}
}

// Fast use doubles the range each time (DefaultPolicy, as on the server), because every request
// carries the previous range's size, grant time and high end.
func TestGeneratorRangesDoubleUnderFastUse(t *testing.T) {
	src := newFakeSource()
	g := newGen(t, src, "orders")
	done := fetched(g)
	ctx := testCtx(t)
	const n = 300_000
	for range n {
		mustNext(t, ctx, g)
	}
	// Let a prefetch in flight land, so the answers below are all there is.
	g.mu.Lock()
	started := g.fetchSeq
	g.mu.Unlock()
	for range started {
		waitFetched(t, done)
	}
	reqs, answers, _ := src.snapshot()
	if len(answers) < 10 {
		t.Fatalf("%d ranges for %d IDs", len(answers), n)
	}
	for i, a := range answers {
		want := int64(32) << i
		if got := a.GetHigh() - a.GetLow() + 1; got != want {
			t.Errorf("range %d: size %d, want %d", i+1, got, want)
		}
		if i == 0 {
			if r := reqs[0]; r.GetLastBatchSize() != 0 || r.GetLastRangeAt() != 0 || r.GetLastMax() != 0 {
				t.Errorf("first request %v: want no history", r)
			}
			continue
		}
		prev, r := answers[i-1], reqs[i]
		if r.GetLastBatchSize() != prev.GetLastSize() || r.GetLastRangeAt() != prev.GetLastRangeAt() || r.GetLastMax() != prev.GetHigh() {
			t.Errorf("request %d = %v, want last_batch_size %d, last_range_at %d, last_max %d from the previous answer",
				i+1, r, prev.GetLastSize(), prev.GetLastRangeAt(), prev.GetHigh())
		}
		if r.GetRequestId() == "" || r.GetRequestId() == reqs[i-1].GetRequestId() {
			t.Errorf("request %d: request_id %q, want a fresh one", i+1, r.GetRequestId())
		}
	}
}

// An answer lost on the way back: the next fetch repeats the request with the same request_id,
// gets the same range, and no number is skipped.
func TestGeneratorRetryReusesRequestID(t *testing.T) {
	src := newFakeSource()
	src.loseAnswers = 1
	g := newGen(t, src, "orders")
	ctx := testCtx(t)
	if _, err := g.NextID(ctx); status.Code(err) != codes.Unavailable {
		t.Fatalf("first NextID with the answer lost = %v, want UNAVAILABLE", err)
	}
	for i := int64(1); i <= 100; i++ {
		if n := number(t, mustNext(t, ctx, g), "orders"); n != i {
			t.Fatalf("ID %d has number %d: the lost range was not replayed", i, n)
		}
	}
	reqs, _, _ := src.snapshot()
	if reqs[0].GetRequestId() != reqs[1].GetRequestId() {
		t.Errorf("retry used request_id %q, first attempt %q; want the same", reqs[1].GetRequestId(), reqs[0].GetRequestId())
	}
}

// Close gives back what was not handed out: a new generator continues right after.
func TestGeneratorCloseReturnsTail(t *testing.T) {
	src := newFakeSource()
	g := newGen(t, src, "orders")
	stillClock(g) // ten quick IDs would otherwise prefetch the next range
	ctx := testCtx(t)
	for range 10 {
		mustNext(t, ctx, g)
	}
	if err := g.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, err := g.NextID(ctx); !errors.Is(err, ErrClosed) {
		t.Fatalf("NextID after Close = %v, want ErrClosed", err)
	}
	_, _, returns := src.snapshot()
	if len(returns) != 1 || returns[0].GetEnd() != 32 || returns[0].GetLast() != 10 {
		t.Fatalf("returns %v, want one {end 32, last 10}", returns)
	}
	if !g.Stats().Returned {
		t.Error("Stats().Returned is false after a return")
	}
	if err := g.Close(ctx); err != nil {
		t.Errorf("second Close: %v", err)
	}
	g2 := newGen(t, src, "orders")
	if n := number(t, mustNext(t, ctx, g2), "orders"); n != 11 {
		t.Fatalf("after Close at orders/10-A, a new generator starts at %d, want 11", n)
	}
}

// A prefetched range that was never used is returned whole, then the current range's tail
// below it: the next range starts right after the last ID handed out.
func TestGeneratorCloseReturnsUnusedPrefetchedRangeAndTail(t *testing.T) {
	src := newFakeSource()
	g := newGen(t, src, "orders")
	done := fetched(g)
	ctx := testCtx(t)
	for range 25 { // the 25th starts the prefetch of 33…96 at the latest
		mustNext(t, ctx, g)
	}
	waitFetched(t, done)
	waitFetched(t, done)
	if err := g.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
	_, _, returns := src.snapshot()
	if len(returns) != 2 || returns[0].GetEnd() != 96 || returns[0].GetLast() != 32 || returns[1].GetEnd() != 32 || returns[1].GetLast() != 25 {
		t.Fatalf("returns %v, want {end 96, last 32} then {end 32, last 25}", returns)
	}
	if m := src.maxOf("orders"); m != 25 {
		t.Fatalf("Max after Close = %d, want 25", m)
	}
	if n := number(t, mustNext(t, ctx, newGen(t, src, "orders")), "orders"); n != 26 {
		t.Fatalf("after Close at orders/25-A, a new generator starts at %d, want 26", n)
	}
}

// What Close cannot give back stays a gap: the current tail when another client's range lies
// between it and the prefetched one (Close asks, since with HiLo pools the two may come from
// different pools, and the cluster refuses), and anything once another client got a range
// after the prefetched one (Close stops at the prefetched range's refusal, the tail being right
// below it).
func TestGeneratorCloseLeavesWhatIsNotNewest(t *testing.T) {
	for _, c := range []struct {
		name        string
		otherBefore bool // another client's range between the current and the prefetched range
		wantReturns int
		wantMax     int64
	}{
		{"a range between", true, 2, 64},
		{"a range after", false, 1, 128},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := newFakeSource()
			other := func() {
				if _, err := src.NextHiLo(testCtx(t), &idnodev1.NextHiLoRequest{Tag: "orders", RequestId: "other-" + c.name}); err != nil {
					t.Fatal(err)
				}
			}
			g := newGen(t, src, "orders")
			done := fetched(g)
			ctx := testCtx(t)
			mustNext(t, ctx, g) // 1…32
			waitFetched(t, done)
			if c.otherBefore {
				other() // 33…64
			}
			for range 24 {
				mustNext(t, ctx, g)
			}
			waitFetched(t, done) // the prefetch
			if !c.otherBefore {
				other()
			}
			if err := g.Close(ctx); err != nil {
				t.Fatalf("Close: %v", err)
			}
			if _, _, returns := src.snapshot(); len(returns) != c.wantReturns {
				t.Fatalf("returns %v, want %d", returns, c.wantReturns)
			}
			if m := src.maxOf("orders"); m != c.wantMax {
				t.Fatalf("Max after Close = %d, want %d", m, c.wantMax)
			}
		})
	}
}

// Close while callers are taking IDs: every ID handed out before or during Close is distinct,
// none lies in the returned tail, and a new generator's IDs clash with none of them.
func TestGeneratorCloseDuringUse(t *testing.T) {
	for round := range 20 {
		src := newFakeSource()
		g, err := NewGenerator(src, "orders")
		if err != nil {
			t.Fatal(err)
		}
		ctx := testCtx(t)
		var (
			mu   sync.Mutex
			all  = map[string]bool{}
			wg   sync.WaitGroup
			errc = make(chan error, 8)
		)
		started := make(chan struct{}, 8)
		for range 8 {
			wg.Go(func() {
				var mine []string
				defer func() {
					mu.Lock()
					defer mu.Unlock()
					for _, id := range mine {
						if all[id] {
							errc <- fmt.Errorf("%s handed out twice", id)
							return
						}
						all[id] = true
					}
				}()
				for i := range 1_000_000 {
					id, err := g.NextID(ctx)
					if errors.Is(err, ErrClosed) {
						return
					}
					if err != nil {
						errc <- err
						return
					}
					mine = append(mine, id)
					if i == 100 {
						started <- struct{}{}
					}
				}
				errc <- errors.New("Close did not stop the callers within 1,000,000 IDs")
			})
		}
		for range 8 {
			<-started
		}
		if err := g.Close(ctx); err != nil {
			t.Fatalf("round %d: Close: %v", round, err)
		}
		wg.Wait()
		close(errc)
		for err := range errc {
			t.Fatalf("round %d: %v", round, err)
		}
		g2 := newGen(t, src, "orders")
		for range 5000 {
			if id := mustNext(t, ctx, g2); all[id] {
				t.Fatalf("round %d: %s handed out by the closed generator and again by a new one", round, id)
			}
		}
	}
}

// A refused fetch reaches the waiting caller as the source's status error; a caller whose
// context ends while the fetch is on the network gets its context's error.
func TestGeneratorFetchErrors(t *testing.T) {
	t.Run("refused", func(t *testing.T) {
		src := newFakeSource()
		src.gate = func(int, *idnodev1.NextHiLoRequest) error {
			return status.Error(codes.InvalidArgument, "fake: bad tag")
		}
		g := newGen(t, src, "orders")
		_, err := g.NextID(testCtx(t))
		if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "orders") {
			t.Fatalf("NextID = %v, want INVALID_ARGUMENT naming the tag", err)
		}
	})
	t.Run("caller deadline", func(t *testing.T) {
		src := newFakeSource()
		release := make(chan struct{})
		defer close(release)
		src.gate = func(int, *idnodev1.NextHiLoRequest) error { <-release; return nil }
		g := newGen(t, src, "orders")
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		if _, err := g.NextID(ctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("NextID with the fetch blocked = %v, want the caller's deadline", err)
		}
	})
	t.Run("overlapping range refused", func(t *testing.T) {
		src := newFakeSource()
		src.overlap = true
		g := newGen(t, src, "orders")
		ctx := testCtx(t)
		for i := int64(1); i <= 32; i++ {
			if n := number(t, mustNext(t, ctx, g), "orders"); n != i {
				t.Fatalf("ID %d has number %d", i, n)
			}
		}
		if id, err := g.NextID(ctx); err == nil || !strings.Contains(err.Error(), "overlapping") {
			t.Fatalf("NextID after an overlapping answer = %q, %v; want an overlap error", id, err)
		}
	})
	t.Run("bad tag", func(t *testing.T) {
		src := newFakeSource()
		for _, c := range []struct {
			tag, sep string
		}{{"", ""}, {"a|b", ""}, {"a\\b", ""}, {"  ", ""}, {"orders/", ""}, {"orders-", "-"}} {
			g, err := NewGenerator(src, c.tag, WithSeparator(c.sep))
			if err == nil {
				_, err = g.NextID(testCtx(t))
				t.Errorf("NewGenerator(%q, separator %q) accepted; NextID then: %v", c.tag, c.sep, err)
			}
		}
		if n := src.callCount(); n != 0 {
			t.Errorf("bad tags made %d NextHiLo calls, want none", n)
		}
	})
}

// The fast formatter prints exactly what docid.HiLoID does, also in ranges that cross a power
// of ten (where some numbers are narrower than the range's widest).
func TestGeneratorFormatMatchesHiLoID(t *testing.T) {
	ranges := [][2]int64{{1, 32}, {5, 12}, {90, 1100}, {99_990, 100_010}, {123_456_789, 123_456_800},
		{math.MaxInt64 - 40, math.MaxInt64}, {999_999_999_999_999_990, 1_000_000_000_000_000_010}}
	for _, prefix := range []string{"orders/", "Orders:", "ä/"} {
		for _, tag := range []string{"A", "ZZZZ"} {
			for _, r := range ranges {
				s := newSpan(r[0], r[1], prefix, "-"+tag)
				for n := r[0]; n <= r[1] && n > 0; n++ {
					if got, want := s.format(n), docid.HiLoID(prefix, n, tag); got != want {
						t.Fatalf("format(%q, %d, %q) in [%d, %d] = %q, want %q", prefix, n, tag, r[0], r[1], got, want)
					}
				}
			}
		}
	}
}

// Tags are created once, lazily, however many goroutines ask at the same time; each tag has
// its own numbers; Close returns every tag's tail and refuses new work.
func TestMultiGeneratorLazyConcurrentAndClose(t *testing.T) {
	src := newFakeSource()
	m := NewMultiGenerator(src)
	ctx := testCtx(t)
	tags := []string{"orders", "invoices", "users", "carts", "items"}
	const workers, each = 20, 500
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		seen = map[string]bool{}
		dup  []string
		errs []error
	)
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				id, err := m.NextID(ctx, tags[(w+i)%len(tags)])
				mu.Lock()
				if err != nil {
					errs = append(errs, err)
				} else if seen[id] {
					dup = append(dup, id)
				}
				seen[id] = true
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(errs) > 0 || len(dup) > 0 {
		t.Fatalf("errors %v, duplicates %v", errs, dup)
	}
	if len(seen) != workers*each {
		t.Fatalf("%d distinct IDs, want %d", len(seen), workers*each)
	}
	if got := m.Tags(); len(got) != len(tags) {
		t.Fatalf("generators for %v, want one per tag of %v", got, tags)
	}
	for _, tag := range tags {
		g1, _ := m.Generator(tag)
		g2, _ := m.Generator(tag)
		if g1 != g2 {
			t.Fatalf("two generators for %q", tag)
		}
	}
	if err := m.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
	for _, tag := range tags {
		// Each tag handed out 2000 numbers, 1…2000, from ranges 32, 64, … 1024 (up to 2016),
		// and prefetched 2017…4064 at 80% of the last: Close returns that one whole, so Max
		// is 2016; 2000 if the tail of the current range could be returned instead.
		if m := src.maxOf(tag); m < int64(workers*each/len(tags)) || m > 2016 {
			t.Errorf("tag %s: Max %d after Close, want 2000…2016", tag, m)
		}
	}
	if _, err := m.NextID(ctx, "orders"); !errors.Is(err, ErrClosed) {
		t.Errorf("NextID(orders) after Close = %v, want ErrClosed", err)
	}
	if _, err := m.NextID(ctx, "newtag"); !errors.Is(err, ErrClosed) {
		t.Errorf("NextID(newtag) after Close = %v, want ErrClosed", err)
	}
}

// AppendNextID draws from the same numbers as NextID and appends the same text.
func TestGeneratorAppendNextID(t *testing.T) {
	src := newFakeSource()
	g := newGen(t, src, "orders")
	ctx := testCtx(t)
	buf := []byte("ids:")
	for i := int64(1); i <= 1000; i++ {
		var got string
		if i%2 == 0 {
			got = mustNext(t, ctx, g)
		} else {
			var err error
			before := len(buf)
			if buf, err = g.AppendNextID(ctx, buf); err != nil {
				t.Fatal(err)
			}
			got = string(buf[before:])
		}
		if want := docid.HiLoID("orders/", i, "A"); got != want {
			t.Fatalf("ID %d = %q, want %q", i, got, want)
		}
	}
	if !strings.HasPrefix(string(buf), "ids:orders/1-A") {
		t.Fatalf("AppendNextID lost what dst held: %.30q", buf)
	}
	if allocs := testing.AllocsPerRun(1000, func() { buf, _ = g.AppendNextID(ctx, buf[:0]) }); allocs != 0 {
		t.Errorf("AppendNextID into a buffer with room: %v allocations per ID, want 0", allocs)
	}
	if err := g.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := g.AppendNextID(ctx, nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("AppendNextID after Close = %v, want ErrClosed", err)
	}
}
