package tracing

import (
	"context"
	"net"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	collectorpb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// A call is a span on the server that ServerOptions instrument, except the health checks,
// which probes make every few seconds.
func TestServerSpansLeaveOutHealthChecks(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tr := New(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)), "A", nil)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer(tr.ServerOptions()...)
	healthpb.RegisterHealthServer(gs, health.NewServer())
	collectorpb.RegisterTraceServiceServer(gs, &receiver{})
	go func() { _ = gs.Serve(l) }()
	defer gs.Stop()
	cc, err := grpc.NewClient("passthrough:///"+l.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	ctx := context.Background()
	if _, err := healthpb.NewHealthClient(cc).Check(ctx, &healthpb.HealthCheckRequest{}); err != nil {
		t.Fatal(err)
	}
	if _, err := collectorpb.NewTraceServiceClient(cc).Export(ctx, &collectorpb.ExportTraceServiceRequest{}); err != nil {
		t.Fatal(err)
	}
	gs.GracefulStop() // every call's span has ended
	var names []string
	for _, s := range rec.Ended() {
		names = append(names, s.Name())
	}
	if len(names) != 1 || names[0] != "opentelemetry.proto.collector.trace.v1.TraceService/Export" {
		t.Errorf("server spans %v, want the Export call's alone", names)
	}
}
