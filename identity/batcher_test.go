package identity

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/hashicorp/raft"

	"github.com/idnode/idnode/docid"
	"github.com/idnode/idnode/fsm"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// fsmApplier applies commands straight to a real FSM, as a one-node Raft would, and records
// the size of every identity batch. gate, when set, holds each Apply until a value arrives;
// entered, when set, is told each time an Apply starts.
type fsmApplier struct {
	fsm     *fsm.FSM
	gate    chan struct{}
	entered chan struct{}
	mu      sync.Mutex
	sizes   []int
	err     error
	index   uint64
}

func (a *fsmApplier) Apply(ctx context.Context, cmd []byte) (any, error) {
	if a.entered != nil {
		a.entered <- struct{}{}
	}
	if a.gate != nil {
		select {
		case <-a.gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.err != nil {
		return nil, a.err
	}
	a.index++
	resp := a.fsm.Apply(&raft.Log{Index: a.index, Type: raft.LogCommand, Data: cmd})
	if r, ok := resp.(fsm.IdentityBatchResult); ok {
		a.sizes = append(a.sizes, len(r.Ranges))
	}
	return resp, nil
}

func TestConcurrentCallersGetDistinctConsecutiveValuesInFewEntries(t *testing.T) {
	a := &fsmApplier{fsm: fsm.New(), gate: make(chan struct{})}
	b := NewBatcher(RaftCommitter{Applier: a}, Options{MaxInFlight: 1})
	defer b.Close()
	const callers = 200
	ranges := make([]docid.IdentityBlock, callers)
	var wg sync.WaitGroup
	for i := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := b.Next(context.Background(), &raftv1.IdentityIncrement{Name: "users", Count: int64(1 + i%3), RequestId: ""})
			if err != nil {
				t.Error(err)
			}
			ranges[i] = r.IdentityBlock
		}()
	}
	// Let entries through one at a time until every caller has its answer: while one entry
	// waits at the gate, every other caller queues up behind it.
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for open := true; open; {
		select {
		case a.gate <- struct{}{}:
		case <-done:
			open = false
		}
	}
	seen := make(map[int64]bool)
	var total int64
	for i, r := range ranges {
		if r.Last-r.First+1 != int64(1+i%3) {
			t.Fatalf("caller %d asked for %d values and got %+v", i, 1+i%3, r)
		}
		for v := r.First; v <= r.Last; v++ {
			if seen[v] {
				t.Fatalf("value %d handed out twice", v)
			}
			seen[v] = true
		}
		total += r.Last - r.First + 1
	}
	for v := int64(1); v <= total; v++ {
		if !seen[v] {
			t.Fatalf("value %d skipped: values are not consecutive", v)
		}
	}
	if len(a.sizes) >= callers/2 {
		t.Fatalf("%d callers took %d log entries %v: requests were not coalesced", callers, len(a.sizes), a.sizes)
	}
	t.Logf("%d callers in %d log entries", callers, len(a.sizes))
}

func TestMaxBatchOneTurnsCoalescingOff(t *testing.T) {
	a := &fsmApplier{fsm: fsm.New()}
	b := NewBatcher(RaftCommitter{Applier: a}, Options{MaxBatch: 1})
	defer b.Close()
	var wg sync.WaitGroup
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := b.Next(context.Background(), &raftv1.IdentityIncrement{Name: "x", Count: 1, RequestId: ""}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if len(a.sizes) != 50 {
		t.Fatalf("50 requests took %d entries, want one each", len(a.sizes))
	}
}

func TestApplyErrorReachesEveryCallerOfTheEntry(t *testing.T) {
	boom := errors.New("leadership lost")
	a := &fsmApplier{fsm: fsm.New(), err: boom}
	b := NewBatcher(RaftCommitter{Applier: a}, Options{})
	defer b.Close()
	if _, err := b.Next(context.Background(), &raftv1.IdentityIncrement{Name: "x", Count: 1, RequestId: ""}); !errors.Is(err, boom) {
		t.Fatalf("err = %v, want the applier's error", err)
	}
}

func TestFSMRefusalIsPerRequest(t *testing.T) {
	b := NewBatcher(RaftCommitter{Applier: &fsmApplier{fsm: fsm.New()}}, Options{})
	defer b.Close()
	if _, err := b.Next(context.Background(), &raftv1.IdentityIncrement{Name: "x", Count: 1, RequestId: "req"}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Next(context.Background(), &raftv1.IdentityIncrement{Name: "y", Count: 1, RequestId: "req"}); !errors.Is(err, fsm.ErrRequestIDReused) {
		t.Fatalf("reused request id = %v, want ErrRequestIDReused", err)
	}
}

func TestCanceledCallerIsNotProposed(t *testing.T) {
	a := &fsmApplier{fsm: fsm.New(), gate: make(chan struct{}), entered: make(chan struct{}, 4)}
	b := NewBatcher(RaftCommitter{Applier: a}, Options{MaxInFlight: 1})
	defer b.Close()
	first := make(chan error, 1)
	go func() {
		_, err := b.Next(context.Background(), &raftv1.IdentityIncrement{Name: "x", Count: 1, RequestId: ""})
		first <- err
	}()
	<-a.entered // the first entry now holds the only in-flight slot
	ctx, cancel := context.WithCancel(context.Background())
	canceled := make(chan error, 1)
	go func() {
		_, err := b.Next(ctx, &raftv1.IdentityIncrement{Name: "x", Count: 1, RequestId: ""})
		canceled <- err
	}()
	cancel()
	if err := <-canceled; !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled caller got %v", err)
	}
	a.gate <- struct{}{}
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	next := make(chan docid.IdentityBlock, 1)
	go func() {
		r, _ := b.Next(context.Background(), &raftv1.IdentityIncrement{Name: "x", Count: 1, RequestId: ""})
		next <- r.IdentityBlock
	}()
	<-a.entered
	a.gate <- struct{}{}
	if r := <-next; r.First != 2 {
		t.Fatalf("after a canceled caller the next value is %d, want 2: the canceled request burned a value", r.First)
	}
}

func TestCloseFailsWaitingCallers(t *testing.T) {
	b := NewBatcher(RaftCommitter{Applier: &fsmApplier{fsm: fsm.New()}}, Options{})
	b.Close()
	if _, err := b.Next(context.Background(), &raftv1.IdentityIncrement{Name: "x", Count: 1, RequestId: ""}); !errors.Is(err, ErrClosed) {
		t.Fatalf("Next after Close = %v, want ErrClosed", err)
	}
}

// A follower's relayed batch joins the leader's batches: its increments are answered in
// order, and queued behind an entry in flight they share the next one.
func TestNextManyJoinsTheBatchesAndAnswersInOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := &fsmApplier{fsm: fsm.New(), gate: make(chan struct{})}
		b := NewBatcher(RaftCommitter{Applier: a}, Options{})
		defer b.Close()
		incs := []*raftv1.IdentityIncrement{{Name: "x", Count: 2}, {Name: "y", Count: 1}, {Name: "x", Count: 0}, {Name: "x", Count: 3}}
		answers := make(chan []Result)
		go func() { answers <- b.NextMany(context.Background(), incs) }()
		// The first entry holds at the gate until every increment is queued: however the
		// scheduler interleaved them, the rest then go together.
		synctest.Wait()
		close(a.gate)
		got := <-answers
		want := []Result{{IdentityBlock: docid.IdentityBlock{First: 1, Last: 2}}, {IdentityBlock: docid.IdentityBlock{First: 1, Last: 1}}, {Err: fsm.ErrInvalidCount}, {IdentityBlock: docid.IdentityBlock{First: 3, Last: 5}}}
		for i := range want {
			if !reflect.DeepEqual(got[i].IdentityBlock, want[i].IdentityBlock) || !errors.Is(got[i].Err, want[i].Err) {
				t.Errorf("increment %d = %+v, want %+v", i, got[i], want[i])
			}
		}
		if len(a.sizes) > 2 {
			t.Errorf("four increments queued at once took %d entries %v", len(a.sizes), a.sizes)
		}
	})
}
