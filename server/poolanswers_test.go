package server

import (
	"sync"
	"testing"

	"github.com/idnode/idnode/hilopool"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

var usersPool = hilopool.Key{Database: "default", Tag: "users"}

// Grants for different request_ids run at the same time (they share the pool's writes); a
// retry of one under way waits for it and gets its answer, with no second grant.
func TestPoolAnswersSerialiseOnlyTheSameRequestID(t *testing.T) {
	p := newPoolAnswers()
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
		resp, ok, err := p.answer(usersPool, &idnodev1.NextHiLoRequest{Tag: "users", RequestId: id}, grantFor(id, low, block))
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
