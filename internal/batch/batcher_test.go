package batch

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// upper answers each item upper-cased and records the batches it was given.
type upper struct {
	mu      sync.Mutex
	batches [][]string
	gate    chan struct{}
	entered chan struct{}
	err     error
}

func (u *upper) Commit(_ context.Context, items []string) ([]string, error) {
	if u.entered != nil {
		u.entered <- struct{}{}
	}
	if u.gate != nil {
		<-u.gate
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	u.batches = append(u.batches, items)
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = strings.ToUpper(it)
	}
	return out, u.err
}

func failed(err error) string { return "failed: " + err.Error() }

// Items queued while a batch is in flight go together in the next one, and each caller gets
// its own item's answer.
func TestItemsQueuedMeanwhileShareABatch(t *testing.T) {
	u := &upper{gate: make(chan struct{}), entered: make(chan struct{}, 2)}
	b := New[string, string](u, Options{MaxInFlight: 1}, failed)
	defer b.Close()
	first := make(chan string)
	go func() {
		out, _ := b.Do(context.Background(), "first")
		first <- out
	}()
	<-u.entered // "first" is in flight: the loop waits for it before the next batch
	items := []string{"a", "b", "c", "d", "e"}
	many := make(chan []string)
	go func() { many <- b.DoMany(context.Background(), items) }()
	// The loop takes one item and waits for "first" to be answered; the rest stay queued.
	for len(b.queue) < len(items)-1 {
		runtime.Gosched()
	}
	close(u.gate)
	if got := <-first; got != "FIRST" {
		t.Errorf("first answered %q", got)
	}
	answers := <-many
	for i, a := range answers {
		if want := strings.ToUpper(items[i]); a != want {
			t.Errorf("item %d answered %q, want %q", i, a, want)
		}
	}
	// The last item may have been queued after the gate opened, and gone alone.
	if len(u.batches) > 3 || len(u.batches[1]) < len(items)-1 {
		t.Errorf("batches %v, want [first] then the five together (or four, and the last)", u.batches)
	}
}

// A batch that fails as a whole answers every item of it with failed(err); Close answers
// what is still queued with failed(ErrClosed).
func TestFailuresAnswerThroughFailed(t *testing.T) {
	u := &upper{err: errors.New("no quorum")}
	b := New[string, string](u, Options{}, failed)
	got := b.DoMany(context.Background(), []string{"x", "y"})
	for _, g := range got {
		if g != "failed: no quorum" {
			t.Errorf("item of a failed batch answered %q", g)
		}
	}
	b.Close()
	if _, err := b.Do(context.Background(), "late"); !errors.Is(err, ErrClosed) {
		t.Errorf("Do after Close = %v, want ErrClosed", err)
	}
	if got := b.DoMany(context.Background(), []string{"late"}); got[0] != failed(ErrClosed) {
		t.Errorf("DoMany after Close answered %q", got[0])
	}
}

// OnRound tells of every batch once answered: when each item was queued (and whether in a
// DoMany), before the batch was proposed, and the answer after.
func TestOnRoundTellsWhenItemsWereQueued(t *testing.T) {
	rounds := make(chan Round, 4)
	b := New[string, string](&upper{}, Options{OnRound: func(r Round) { rounds <- r }}, failed)
	defer b.Close()
	if out, _ := b.Do(context.Background(), "one"); out != "ONE" {
		t.Fatalf("Do answered %q", out)
	}
	b.DoMany(context.Background(), []string{"x"})
	for _, many := range []bool{false, true} {
		r := <-rounds
		if len(r.Queued) != 1 || len(r.Many) != 1 || r.Many[0] != many {
			t.Fatalf("round %+v: want one item, many=%v", r, many)
		}
		if r.Queued[0].IsZero() || r.Proposed.Before(r.Queued[0]) || r.Answered.Before(r.Proposed) {
			t.Errorf("round %+v: want queued ≤ proposed ≤ answered", r)
		}
	}
}

// After a batch of more than one item the next lingers: it is proposed Linger after its first
// item arrived, with the callers that came meanwhile. After a batch of one nothing waits, and
// Close ends a linger at once. In a synctest bubble time moves only when every goroutine
// waits, so the clock reads exactly the waits.
func TestBatchLingersOnlyAfterABatchOfMany(t *testing.T) {
	const linger = time.Millisecond
	synctest.Test(t, func(t *testing.T) {
		u := &upper{gate: make(chan struct{}), entered: make(chan struct{}, 1)}
		b := New[string, string](u, Options{MaxInFlight: 1, Linger: linger}, failed)
		answers := make(chan string, 8)
		do := func(item string) { out, _ := b.Do(context.Background(), item); answers <- out }
		proposedAfter := func(start time.Time, want time.Duration, what string) {
			t.Helper()
			<-u.entered
			if took := time.Since(start); took != want {
				t.Errorf("%s was proposed after %v, want %v", what, took, want)
			}
		}

		start := time.Now()
		go do("alone")
		proposedAfter(start, 0, "the first batch")
		// p and q queue while "alone" is in its round, and go together once it is answered.
		go func() {
			for _, out := range b.DoMany(context.Background(), []string{"p", "q"}) {
				answers <- out
			}
		}()
		synctest.Wait()
		start = time.Now()
		u.gate <- struct{}{}
		proposedAfter(start, 0, "a batch after a batch of one")
		u.gate <- struct{}{}
		synctest.Wait()
		// After [p q] the next batch waits for whoever comes within the linger.
		start = time.Now()
		go do("r")
		go func() { time.Sleep(linger / 2); do("s") }()
		proposedAfter(start, linger, "a batch after a batch of two")
		u.gate <- struct{}{}
		synctest.Wait()
		want := [][]string{{"alone"}, {"p", "q"}, {"r", "s"}}
		if !slices.EqualFunc(u.batches, want, slices.Equal) {
			t.Errorf("batches %q, want %q", u.batches, want)
		}
		var got []string
		for range 5 {
			got = append(got, <-answers)
		}
		slices.Sort(got)
		if want := []string{"ALONE", "P", "Q", "R", "S"}; !slices.Equal(got, want) {
			t.Errorf("callers were answered %q, want %q", got, want)
		}

		// [r s] was a batch of two: the next lingers, and Close ends that at once.
		start = time.Now()
		go do("late")
		synctest.Wait()
		b.Close()
		if out := <-answers; out != failed(ErrClosed) || time.Since(start) != 0 {
			t.Errorf("a caller lingering at Close: %q after %v, want %q at once", out, time.Since(start), failed(ErrClosed))
		}
	})
}
