package server_test

import (
	"context"
	"log/slog"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/idnode/idnode/internal/tracing"
	"github.com/idnode/idnode/node"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// BenchmarkIdentityTracing is one caller's identities through a follower of an in-process
// cluster with tracing off, and on with 1% and 100% of the calls sampled (spans batched to an
// exporter that drops them): what tracing adds to an identity, in allocations, which do not
// depend on the machine's load, and in time, which does.
//
//	go test -run NONE -bench IdentityTracing -benchtime 2000x ./server/
func BenchmarkIdentityTracing(b *testing.B) {
	for _, c := range []struct {
		name  string
		ratio float64 // < 0: tracing off
	}{{"off", -1}, {"sampled=1%", 0.01}, {"sampled=100%", 1}} {
		b.Run(c.name, func(b *testing.B) {
			tc := newTestClusterConfigured(b, 3, func(nc *node.Config) {
				if c.ratio < 0 {
					return
				}
				nc.Tracing = func(tag string, _ *slog.Logger) (*tracing.Tracing, error) {
					tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()),
						sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.TraceIDRatioBased(c.ratio))))
					return tracing.New(tp, tag, tp.Shutdown), nil
				}
			})
			leader := tc.waitLeader(startupTimeout, tc.Tags()...)
			ids := idnodev1.NewIdServiceClient(tc.Dial(b, without(tc.Tags(), leader)[0]))
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ids.NextIdentity(ctx, &idnodev1.NextIdentityRequest{Name: "bench"}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
