package hilopool

import (
	"errors"
	"sync"
	"testing"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

var usersPool = Key{Database: "default", Tag: "users"}

var errReused = errors.New("request_id reused")

// Grants for different request_ids run at the same time (they share the pool's writes); a
// retry of one under way waits for it and gets its answer, with no second grant.
func TestPoolAnswersSerialiseOnlyTheSameRequestID(t *testing.T) {
	p := NewAnswers[*idnodev1.NextHiLoResponse](errReused)
	firstIn, release := make(chan struct{}), make(chan struct{})
	var grants sync.Map // request_id → grants run
	grantFor := func(id string, low int64, block bool) func() (*idnodev1.NextHiLoResponse, bool, error) {
		return func() (*idnodev1.NextHiLoResponse, bool, error) {
			n, _ := grants.LoadOrStore(id, new(int))
			*n.(*int)++
			if block {
				close(firstIn)
				<-release
			}
			return &idnodev1.NextHiLoResponse{Low: low, High: low + 31}, true, nil
		}
	}
	call := func(id string, low int64, block bool) *idnodev1.NextHiLoResponse {
		resp, ok, err := p.Answer(usersPool, id, grantFor(id, low, block))
		if err != nil || !ok {
			t.Errorf("answer(%s): ok %v, err %v", id, ok, err)
		}
		return resp
	}

	var first, retry *idnodev1.NextHiLoResponse
	var wg sync.WaitGroup
	wg.Go(func() { first = call("a", 1, true) })
	<-firstIn
	// "b" is granted while "a" is still granting: no lock across grants.
	if got := call("b", 33, false); got.GetLow() != 33 {
		t.Fatalf("b = %v, want 33..64", got)
	}
	wg.Go(func() { retry = call("a", 65, false) })
	close(release)
	wg.Wait()
	if first.GetLow() != 1 || retry.GetLow() != 1 {
		t.Fatalf("a = %v, its retry = %v; want both 1..32", first, retry)
	}
	if n, _ := grants.Load("a"); *n.(*int) != 1 {
		t.Fatalf("request a granted %d times, want once", *n.(*int))
	}
}

// A retry of a request whose range was given back gets a new range, never the returned
// one; a forget that names another range of the request changes nothing.
func TestPoolAnswersForgetAReturnedRange(t *testing.T) {
	p := NewAnswers[*idnodev1.NextHiLoResponse](errReused)
	next := int64(1)
	grant := func() (*idnodev1.NextHiLoResponse, bool, error) {
		resp := &idnodev1.NextHiLoResponse{Low: next, High: next + 31}
		next += 32
		return resp, true, nil
	}
	call := func() *idnodev1.NextHiLoResponse {
		t.Helper()
		resp, ok, err := p.Answer(usersPool, "r1", grant)
		if err != nil || !ok {
			t.Fatalf("answer(r1): ok %v, err %v", ok, err)
		}
		return resp
	}
	first := call()
	p.Forget(usersPool, "r1", first.GetHigh()+1)
	p.Forget(Key{Database: "other", Tag: "users"}, "r1", first.GetHigh())
	if again := call(); again.GetLow() != first.GetLow() {
		t.Fatalf("retry after forgets of other ranges = %v, want %v", again, first)
	}
	p.Forget(usersPool, "r1", first.GetHigh())
	if again := call(); again.GetLow() != 33 {
		t.Fatalf("retry after its range was returned = %v, want a new range 33..64", again)
	}
}
