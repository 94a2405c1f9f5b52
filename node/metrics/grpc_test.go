package metrics

import (
	"context"
	"errors"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
)

const generateMethod = "/idnode.v1.IdService/Generate"

// Every call is counted as go-grpc-middleware's provider counted it (the exposition was compared
// line by line with the provider's before it was replaced): started, received, sent on
// success, handled by code (a context error by its code, a plain error as UNKNOWN), timed.
func TestGRPCUnaryCallsAreCounted(t *testing.T) {
	m := New()
	unary := m.GRPC.UnaryServerInterceptor()
	info := &grpc.UnaryServerInfo{FullMethod: generateMethod}
	for _, err := range []error{nil, nil, status.Error(codes.NotFound, "gone"), context.DeadlineExceeded, errors.New("plain")} {
		if _, got := unary(context.Background(), "req", info, func(context.Context, any) (any, error) { return "resp", err }); got != err {
			t.Fatalf("the interceptor returned %v, the handler %v", got, err)
		}
	}
	body := scrape(t, m.Handler())
	labels := `grpc_method="Generate",grpc_service="idnode.v1.IdService",grpc_type="unary"`
	for _, want := range []string{
		`grpc_server_started_total{` + labels + `} 5`,
		`grpc_server_msg_received_total{` + labels + `} 5`,
		`grpc_server_msg_sent_total{` + labels + `} 2`,
		`grpc_server_handled_total{grpc_code="OK",` + labels + `} 2`,
		`grpc_server_handled_total{grpc_code="NotFound",` + labels + `} 1`,
		`grpc_server_handled_total{grpc_code="DeadlineExceeded",` + labels + `} 1`,
		`grpc_server_handled_total{grpc_code="Unknown",` + labels + `} 1`,
		`grpc_server_handling_seconds_count{` + labels + `} 5`,
		// Every call lands in some bucket; which one is the machine's speed, not the code's.
		`grpc_server_handling_seconds_bucket{` + labels + `,le="+Inf"} 5`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	if strings.Contains(body, `grpc_code="Internal"`) {
		t.Error("a code no call answered shows, without InitializeMetrics")
	}
}

type fakeStream struct{ grpc.ServerStream }

func (fakeStream) Context() context.Context { return context.Background() }
func (fakeStream) SendMsg(any) error        { return nil }
func (fakeStream) RecvMsg(any) error        { return nil }

// A stream's messages are counted one by one, under its type.
func TestGRPCStreamMessagesAreCounted(t *testing.T) {
	m := New()
	info := &grpc.StreamServerInfo{FullMethod: "/idnode.v1.IdService/Watch", IsServerStream: true}
	err := m.GRPC.StreamServerInterceptor()(nil, fakeStream{}, info, func(_ any, ss grpc.ServerStream) error {
		_ = ss.RecvMsg(nil)
		_ = ss.SendMsg(1)
		_ = ss.SendMsg(2)
		return status.Error(codes.Canceled, "gone")
	})
	if status.Code(err) != codes.Canceled {
		t.Fatalf("the interceptor returned %v", err)
	}
	body := scrape(t, m.Handler())
	labels := `grpc_method="Watch",grpc_service="idnode.v1.IdService",grpc_type="server_stream"`
	for _, want := range []string{
		`grpc_server_started_total{` + labels + `} 1`,
		`grpc_server_msg_received_total{` + labels + `} 1`,
		`grpc_server_msg_sent_total{` + labels + `} 2`,
		`grpc_server_handled_total{grpc_code="Canceled",` + labels + `} 1`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}

// InitializeMetrics shows every registered method, and every code of it, at 0.
func TestGRPCInitializeMetrics(t *testing.T) {
	m := New()
	gs := grpc.NewServer()
	healthpb.RegisterHealthServer(gs, health.NewServer())
	m.GRPC.InitializeMetrics(gs)
	body := scrape(t, m.Handler())
	for _, want := range []string{
		`grpc_server_started_total{grpc_method="Check",grpc_service="grpc.health.v1.Health",grpc_type="unary"} 0`,
		`grpc_server_handled_total{grpc_code="DataLoss",grpc_method="Watch",grpc_service="grpc.health.v1.Health",grpc_type="server_stream"} 0`,
		`grpc_server_handling_seconds_count{grpc_method="List",grpc_service="grpc.health.v1.Health",grpc_type="unary"} 0`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}

// The per-call cost of the gRPC metrics: the next change to them is judged by it.
func BenchmarkGRPCUnaryInterceptor(b *testing.B) {
	unary := New().GRPC.UnaryServerInterceptor()
	info := &grpc.UnaryServerInfo{FullMethod: generateMethod}
	handler := func(context.Context, any) (any, error) { return "resp", nil }
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := unary(context.Background(), "req", info, handler); err != nil {
				b.Fatal(err)
			}
		}
	})
}
