package hilo

import (
	"context"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/internal/hilogrant"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// fakeSource is an in-memory RangeSource with the FSM's HiLo rules (fsm/hilo_grant.go): ranges
// of a tag start above max(Max, last_max) and never overlap, a request_id replays its range and
// is its grant's identity, and a return follows package hilogrant. Range sizes follow a Policy
// on the fake's clock, as the server's do.
type fakeSource struct {
	policy Policy
	now    func() time.Time

	// gate, if set, runs at the start of every NextHiLo with its 1-based call number; it may
	// block (the fetch is then "on the network") or return an error to fail the call before
	// anything is reserved.
	gate func(call int, req *idnodev1.NextHiLoRequest) error
	// loseAnswers makes the next n calls reserve their range and then fail with UNAVAILABLE,
	// as if the answer was lost on the way back.
	loseAnswers int
	// overlap makes every answer start at 1, as a broken server might.
	overlap bool

	mu       sync.Mutex
	max      map[string]int64
	grants   map[string]*hilogrant.Stack
	byReqID  map[string][2]int64
	calls    int
	inflight int // NextHiLo calls running now
	peak     int // most NextHiLo calls ever running at once
	requests []*idnodev1.NextHiLoRequest
	answers  []*idnodev1.NextHiLoResponse
	returns  []*idnodev1.ReturnHiLoRequest
}

func newFakeSource() *fakeSource {
	return &fakeSource{
		policy: DefaultPolicy, now: time.Now,
		max: map[string]int64{}, grants: map[string]*hilogrant.Stack{}, byReqID: map[string][2]int64{},
	}
}

func (f *fakeSource) NextHiLo(ctx context.Context, req *idnodev1.NextHiLoRequest) (*idnodev1.NextHiLoResponse, error) {
	f.mu.Lock()
	f.calls++
	call := f.calls
	f.inflight++
	f.peak = max(f.peak, f.inflight)
	f.requests = append(f.requests, req)
	gate := f.gate
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		f.inflight--
		f.mu.Unlock()
	}()
	if gate != nil {
		if err := gate(call, req); err != nil {
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, status.FromContextError(err).Err()
	}

	f.mu.Lock()
	defer f.mu.Unlock()
	key := strings.ToLower(req.GetTag())
	now := f.now()
	var low, high int64
	if r, ok := f.byReqID[req.GetRequestId()]; ok && req.GetRequestId() != "" {
		low, high = r[0], r[1]
	} else {
		var lastAt time.Time
		if req.GetLastRangeAt() > 0 {
			lastAt = time.UnixMilli(req.GetLastRangeAt())
		}
		capacity := f.policy.Capacity(req.GetLastBatchSize(), lastAt, now)
		base := max(f.max[key], req.GetLastMax())
		low, high = base+1, base+capacity
		f.max[key] = high
		if f.grants[key] == nil {
			f.grants[key] = &hilogrant.Stack{}
		}
		f.grants[key].Push(hilogrant.Grant{ID: req.GetRequestId(), Low: low, High: high})
		if req.GetRequestId() != "" {
			f.byReqID[req.GetRequestId()] = [2]int64{low, high}
		}
	}
	if f.overlap {
		low = 1
	}
	sep := req.GetSeparator()
	if sep == "" {
		sep = "/" // the cluster's
	}
	resp := &idnodev1.NextHiLoResponse{
		Prefix: req.GetTag() + sep, Low: low, High: high, LastSize: high - low + 1,
		ServerTag: "A", LastRangeAt: now.UnixMilli(), GrantId: req.GetRequestId(),
	}
	if f.loseAnswers > 0 {
		f.loseAnswers--
		return nil, status.Error(codes.Unavailable, "fake: answer lost")
	}
	f.answers = append(f.answers, resp)
	return resp, nil
}

func (f *fakeSource) ReturnHiLo(ctx context.Context, req *idnodev1.ReturnHiLoRequest) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.returns = append(f.returns, req)
	key := strings.ToLower(req.GetTag())
	g := f.grants[key]
	if g == nil {
		return false, hilogrant.CheckReturn(req.GetGrantId(), req.GetEnd(), req.GetLast())
	}
	ok, err := g.Return(req.GetGrantId(), req.GetEnd(), req.GetLast())
	if ok {
		f.max[key] = req.GetLast()
	}
	return ok, err
}

func (f *fakeSource) maxOf(tag string) int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.max[strings.ToLower(tag)]
}

func (f *fakeSource) peakInflight() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.peak
}

func (f *fakeSource) callCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

func (f *fakeSource) snapshot() (reqs []*idnodev1.NextHiLoRequest, answers []*idnodev1.NextHiLoResponse, returns []*idnodev1.ReturnHiLoRequest) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*idnodev1.NextHiLoRequest(nil), f.requests...),
		append([]*idnodev1.NextHiLoResponse(nil), f.answers...),
		append([]*idnodev1.ReturnHiLoRequest(nil), f.returns...)
}
