package tracing

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/idnode/idnode/test/e2e/e2etest"
)

// clientService is the service.name of the test's own spans, the application's.
const clientService = "idnode-e2e-client"

// applicationTracing is the tracer provider of an application that uses the Go client: its
// own service name, every span sampled, exported to c over OTLP/gRPC, shut down (its spans
// flushed) when the test ends.
func applicationTracing(t *testing.T, c *collector) *sdktrace.TracerProvider {
	t.Helper()
	exp, err := otlptracegrpc.New(e2etest.RPCCtx(t), otlptracegrpc.WithEndpoint(c.OTLPGRPC), otlptracegrpc.WithInsecure())
	if err != nil {
		t.Fatalf("OTLP exporter: %v", err)
	}
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithBatcher(exp),
		sdktrace.WithSampler(sdktrace.AlwaysSample()),
		sdktrace.WithResource(resource.NewSchemaless(attribute.String("service.name", clientService))),
	)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), e2etest.RPCTimeout)
		defer cancel()
		if err := tp.Shutdown(ctx); err != nil {
			t.Errorf("the application's tracer provider: %v", err)
		}
	})
	return tp
}
