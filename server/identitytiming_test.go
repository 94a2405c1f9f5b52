package server

import (
	"context"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// OnIdentityCall hears of identity calls only (NextIdentity, and Generate of an identity), each
// with how long its handler took, for the console's latency graph.
func TestOnIdentityCallTimesIdentityCallsOnly(t *testing.T) {
	t.Parallel()
	s, _ := interceptorServer(t, 1000)
	var heard []time.Duration
	s.cfg.OnIdentityCall = func(d time.Duration) { heard = append(heard, d) }
	ctx := metadata.NewIncomingContext(context.Background(), metadata.Pairs("authorization", "Bearer adm"))
	const took = 5 * time.Millisecond
	slow := func(resp any) grpc.UnaryHandler {
		return func(context.Context, any) (any, error) {
			time.Sleep(took) // the handler's work, whose duration is to be heard; nothing waits on it
			return resp, nil
		}
	}
	for _, tc := range []struct {
		method string
		req    any
		resp   any
		timed  bool
	}{
		{idnodev1.IdService_NextIdentity_FullMethodName, &idnodev1.NextIdentityRequest{Name: "users"}, &idnodev1.NextIdentityResponse{}, true},
		{idnodev1.IdService_Generate_FullMethodName, &idnodev1.GenerateRequest{Id: "users|"}, &idnodev1.GenerateResponse{}, true},
		{idnodev1.IdService_Generate_FullMethodName, &idnodev1.GenerateRequest{Id: "users/"}, &idnodev1.GenerateResponse{}, false},
		{idnodev1.IdService_Generate_FullMethodName, &idnodev1.GenerateRequest{}, &idnodev1.GenerateResponse{}, false},
	} {
		before := len(heard)
		if _, err := s.intercept.unary(ctx, tc.req, &grpc.UnaryServerInfo{FullMethod: tc.method}, slow(tc.resp)); err != nil {
			t.Fatalf("%s %v: %v", tc.method, tc.req, err)
		}
		switch {
		case tc.timed && (len(heard) != before+1 || heard[before] < took):
			t.Errorf("%s %v: heard %v; want one duration of at least %v", tc.method, tc.req, heard[before:], took)
		case !tc.timed && len(heard) != before:
			t.Errorf("%s %v: heard %v; want nothing, it is not an identity call", tc.method, tc.req, heard[before:])
		}
	}
}
