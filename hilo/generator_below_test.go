package hilo

import (
	"context"
	"sync"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// scriptedSource answers NextHiLo with the ranges of its script, in turn, as a cluster whose
// node cut off from the majority grants below last_max would; it records every request.
type scriptedSource struct {
	mu       sync.Mutex
	script   [][2]int64
	requests []*idnodev1.NextHiLoRequest
}

func (s *scriptedSource) NextHiLo(_ context.Context, req *idnodev1.NextHiLoRequest) (*idnodev1.NextHiLoResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, req)
	if len(s.script) == 0 {
		return nil, status.Error(codes.Unavailable, "scripted: no more ranges")
	}
	r := s.script[0]
	s.script = s.script[1:]
	return &idnodev1.NextHiLoResponse{Prefix: req.GetTag() + "/", Low: r[0], High: r[1], LastSize: r[1] - r[0] + 1,
		ServerTag: "A", LastRangeAt: 1, GrantId: req.GetRequestId()}, nil
}

func (s *scriptedSource) ReturnHiLo(context.Context, *idnodev1.ReturnHiLoRequest) (bool, error) {
	return false, nil
}

// A range below the previous one (a node cut off grants from its pool below last_max) is
// printed like any other: the generator neither refuses it nor prints a number twice, and its
// next request carries the new range's end as last_max.
func TestGeneratorTakesARangeBelowThePreviousOne(t *testing.T) {
	src := &scriptedSource{script: [][2]int64{{3393, 3424}, {2049, 2080}, {2081, 2112}}}
	g := newGen(t, src, "orders")
	ctx := testCtx(t)
	var want []int64
	for _, r := range src.script {
		for n := r[0]; n <= r[1]; n++ {
			want = append(want, n)
		}
	}
	seen := make(map[int64]bool)
	for i, w := range want {
		n := number(t, mustNext(t, ctx, g), "orders")
		if n != w || seen[n] {
			t.Fatalf("ID %d has number %d (seen before: %v); want %d", i+1, n, seen[n], w)
		}
		seen[n] = true
	}
	src.mu.Lock()
	defer src.mu.Unlock()
	if len(src.requests) < 3 || src.requests[1].GetLastMax() != 3424 || src.requests[2].GetLastMax() != 2080 {
		t.Fatalf("requests %v; want last_max 3424, then 2080", src.requests)
	}
}
