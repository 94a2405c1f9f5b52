package client

import (
	"context"

	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"
)

// tracerName names the tracer of the client's own spans (a folded call).
const tracerName = "github.com/idnode/idnode/client"

// WithTracerProvider makes every call a span of tp's, through OpenTelemetry's gRPC
// instrumentation, whose context the call carries to the node (W3C traceparent). Without it
// the client uses OpenTelemetry's global provider as it is when Dial is called: an application
// that sets its provider (otel.SetTracerProvider) before it dials is traced, and one that sets
// none pays nothing, the client adding no instrumentation at all.
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(o *options) error {
		o.tracerProvider = tp
		return nil
	}
}

// clientTracing is how the client traces its calls; nil when the provider records nothing.
type clientTracing struct {
	tracer trace.Tracer
	dial   grpc.DialOption
}

// newClientTracing traces through tp (the global provider when nil), with the global
// propagator, or W3C trace context and baggage when the application set none.
func newClientTracing(tp trace.TracerProvider) *clientTracing {
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	if recordsNothing(tp) {
		return nil
	}
	prop := otel.GetTextMapPropagator()
	if len(prop.Fields()) == 0 {
		prop = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
	}
	return &clientTracing{
		tracer: tp.Tracer(tracerName),
		dial:   grpc.WithStatsHandler(otelgrpc.NewClientHandler(otelgrpc.WithTracerProvider(tp), otelgrpc.WithPropagators(prop))),
	}
}

// probeParent is the parent recordsNothing starts its probe under: unsampled, so a provider
// that follows its parent's decision records nothing.
var probeParent = trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{0x1d}, SpanID: trace.SpanID{0x1d}, Remote: true})

// recordsNothing reports whether tp is a no-op provider: OpenTelemetry's global one before
// the application set its own, or noop's. Such a provider hands back its parent's span context
// instead of making a span of its own.
func recordsNothing(tp trace.TracerProvider) bool {
	ctx := trace.ContextWithRemoteSpanContext(context.Background(), probeParent)
	_, probe := tp.Tracer(tracerName).Start(ctx, "idnode.client.probe")
	// An SDK's probe is not sampled (its parent is not), so it is never exported; it is not
	// ended, so that a sampler that ignores the parent has nothing to export either.
	return probe.SpanContext().SpanID() == probeParent.SpanID()
}
