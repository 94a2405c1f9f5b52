package flakelease

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/idnode/idnode/flake"
)

var errLost = errors.New("fake: lease lost")

// fakeLeaser grants leases from now on for leaseMs, and answers renewals with renewErr when
// set; every call is reported on calls.
type fakeLeaser struct {
	mu       sync.Mutex
	epoch    uint64
	renewErr error
	released []uint64 // epochs
	calls    chan string
	hold     chan struct{} // when set, Acquire waits for it to close
}

func newFakeLeaser() *fakeLeaser { return &fakeLeaser{calls: make(chan string, 100)} }

func (f *fakeLeaser) grant(leaseMs int64) Grant {
	now := time.Now().UnixMilli()
	return Grant{Worker: 3, Epoch: f.epoch, MinMs: now - 1, MaxMs: now + leaseMs, ExpiresAtMs: now + leaseMs}
}

func (f *fakeLeaser) Acquire(_ context.Context, leaseMs int64) (Grant, error) {
	f.calls <- "acquire"
	f.mu.Lock()
	hold := f.hold
	f.mu.Unlock()
	if hold != nil {
		<-hold
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.epoch++
	return f.grant(leaseMs), nil
}

func (f *fakeLeaser) Renew(_ context.Context, _ uint32, _ uint64, leaseMs int64) (Grant, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls <- "renew"
	if f.renewErr != nil {
		return Grant{}, f.renewErr
	}
	return f.grant(leaseMs), nil
}

func (f *fakeLeaser) Release(_ context.Context, _ uint32, epoch uint64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.released = append(f.released, epoch)
	return nil
}

func (f *fakeLeaser) Lost(err error) bool { return errors.Is(err, errLost) }

func (f *fakeLeaser) failRenewals(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.renewErr = err
}

func mustStart(t *testing.T, f *fakeLeaser, opts Options) *Minter {
	t.Helper()
	m, err := Start(context.Background(), f, opts)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	return m
}

// next waits for the leaser's next call of kind.
func next(t *testing.T, f *fakeLeaser, kind string) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case c := <-f.calls:
			if c == kind {
				return
			}
		case <-timeout:
			t.Fatalf("no %s within 10 s", kind)
		}
	}
}

func TestMinterRenewsAndReleases(t *testing.T) {
	f := newFakeLeaser()
	m := mustStart(t, f, Options{Layout: flake.DefaultLayout(), Lease: time.Second})
	next(t, f, "acquire")
	a, err := m.Next()
	if err != nil {
		t.Fatal(err)
	}
	next(t, f, "renew")
	next(t, f, "renew") // the first renewal is in: SetLease ran before the second began
	b, err := m.Next()
	if err != nil || b <= a {
		t.Fatalf("after renewals: %d, %v; want above %d", b, err, a)
	}
	if err := m.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Next(); err == nil {
		t.Error("Next after Close minted")
	}
	if len(f.released) != 1 || f.released[0] != 1 {
		t.Errorf("released epochs %v; want [1]", f.released)
	}
}

// A renewal that finds the lease lost stops minting at once, and a new lease resumes it
// above the IDs before.
func TestMinterStopsAtOnceWhenTheLeaseIsLost(t *testing.T) {
	f := newFakeLeaser()
	m := mustStart(t, f, Options{Layout: flake.DefaultLayout(), Lease: time.Second})
	defer m.Close(context.Background())
	next(t, f, "acquire")
	before, err := m.Next()
	if err != nil {
		t.Fatal(err)
	}
	hold := make(chan struct{})
	f.mu.Lock()
	f.hold = hold
	f.mu.Unlock()
	f.failRenewals(errLost)
	next(t, f, "renew")
	next(t, f, "acquire") // the lost flag is set before the new acquisition, which waits
	if id, err := m.Next(); !errors.Is(err, ErrLeaseLost) {
		t.Fatalf("after the lease was lost: Next = %d, %v; want ErrLeaseLost", id, err)
	}
	f.failRenewals(nil)
	close(hold)
	for deadline := time.Now().Add(10 * time.Second); ; {
		id, err := m.Next()
		if err == nil {
			if id <= before {
				t.Fatalf("after a new lease: %d, not above %d", id, before)
			}
			if g := m.Grant(); g.Epoch != 2 {
				t.Fatalf("minting under epoch %d; want the new lease's 2", g.Epoch)
			}
			return
		}
		if !errors.Is(err, ErrLeaseLost) || time.Now().After(deadline) {
			t.Fatalf("between the loss and the new lease: %v; want ErrLeaseLost", err)
		}
	}
}

// Renewals that keep failing (the cluster out of reach) leave the lease to end by itself, at
// its local end, and Next says why.
func TestMinterStopsAtTheLeasesEnd(t *testing.T) {
	f := newFakeLeaser()
	f.failRenewals(errors.New("fake: no quorum"))
	m := mustStart(t, f, Options{Layout: flake.DefaultLayout(), Lease: time.Second})
	defer m.Close(context.Background())
	next(t, f, "acquire")
	// The lease was asked for before start, so it ends by start+1s at the latest. A call that
	// began after that must fail. The time is read before each call, not after it: a test
	// goroutine descheduled after a call that rightly succeeded must not count as minting late.
	start := time.Now()
	for {
		called := time.Now()
		_, err := m.Next()
		if err == nil {
			if late := called.Sub(start); late > time.Second {
				t.Fatalf("a call made %v after the acquire minted, past the 1 s lease", late)
			}
			continue
		}
		if !errors.Is(err, flake.ErrLeaseExpired) {
			t.Fatalf("Next = %v; want ErrLeaseExpired", err)
		}
		return
	}
}

func TestStartRefusesBadOptions(t *testing.T) {
	for _, opts := range []Options{
		{Layout: flake.DefaultLayout(), Lease: time.Millisecond},
		{Layout: flake.DefaultLayout(), Lease: 2 * time.Hour},
		{Layout: flake.DefaultLayout(), Lease: time.Second, Margin: time.Second},
		{Lease: time.Second},
	} {
		if _, err := Start(context.Background(), newFakeLeaser(), opts); err == nil {
			t.Errorf("Start(%+v) succeeded", opts)
		}
	}
}
