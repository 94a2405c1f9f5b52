// Package tracing is a node's OpenTelemetry tracing: the tracer provider the standard
// OTEL_* variables describe (setup.go), the gRPC and HTTP instrumentation that carries the
// W3C trace context between callers and nodes, and the names of the spans a node makes for the
// stages of a call (the wait for a batch, the relay to the leader, the Raft round). A nil
// *Tracing is tracing turned off: every method answers nothing, so the hot path pays one nil
// check.
package tracing

import (
	"context"
	"net/http"
	"time"

	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc"
	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc/filters"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"
)

// The spans a node makes for the stages of a call, besides the gRPC and HTTP ones
// (docs/TRACING.md, "The span tree").
const (
	// SpanBatchWait is one caller's wait in a batcher's queue, from its arrival until its
	// batch was proposed.
	SpanBatchWait = "idnode.batch.wait"
	// SpanRelay is a follower's batch relayed to the leader in one call.
	SpanRelay = "idnode.relay"
	// SpanRaftApply is the leader's batch committed as one Raft entry: proposed to answered.
	SpanRaftApply = "idnode.raft.apply"
	// SpanLogWrite is the leader's write and fsync of the entry, from raft's dispatch of it.
	SpanLogWrite = "idnode.raft.log_write"
	// SpanFollowerAck is the wait, after the leader's own write, for the first follower's
	// acknowledgement: until the entry is committed and handed to the leader's FSM.
	SpanFollowerAck = "idnode.raft.follower_ack"
	// SpanFSMApply is the leader's FSM applying the entry.
	SpanFSMApply = "idnode.fsm.apply"
)

// The attributes of those spans.
const (
	AttrNodeID    = attribute.Key("idnode.node_id")
	AttrBatchSize = attribute.Key("idnode.batch.size")
	AttrRaftIndex = attribute.Key("idnode.raft.index")
)

// instrumentationName names the tracer of the stage spans.
const instrumentationName = "github.com/idnode/idnode"

// Tracing is one node's tracer provider and propagator, and its tag.
type Tracing struct {
	provider   trace.TracerProvider
	tracer     trace.Tracer
	propagator propagation.TextMapPropagator
	node       attribute.KeyValue
	shutdown   func(context.Context) error
}

// New traces through provider for the node tagged node; shutdown, when set, flushes and stops
// the provider (Shutdown). The propagator is W3C trace context and baggage.
func New(provider trace.TracerProvider, node string, shutdown func(context.Context) error) *Tracing {
	return &Tracing{
		provider:   provider,
		tracer:     provider.Tracer(instrumentationName),
		propagator: Propagator(),
		node:       AttrNodeID.String(node),
		shutdown:   shutdown,
	}
}

// Propagator is W3C trace context and baggage, as every OpenTelemetry SDK speaks by default.
func Propagator() propagation.TextMapPropagator {
	return propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
}

// Start starts a stage span named name at the measured instant start, as a child of the span
// in ctx, with the node's tag among its attributes.
func (t *Tracing) Start(ctx context.Context, name string, start time.Time, opts ...trace.SpanStartOption) (context.Context, trace.Span) {
	opts = append(opts, trace.WithTimestamp(start), trace.WithAttributes(t.node))
	return t.tracer.Start(ctx, name, opts...)
}

// Stage records a finished stage span from start to end under the span in ctx.
func (t *Tracing) Stage(ctx context.Context, name string, start, end time.Time, opts ...trace.SpanStartOption) {
	_, span := t.Start(ctx, name, start, opts...)
	span.End(trace.WithTimestamp(end))
}

// ServerOptions instrument a gRPC server: a span per call, its parent the caller's.
func (t *Tracing) ServerOptions() []grpc.ServerOption {
	if t == nil {
		return nil
	}
	return []grpc.ServerOption{grpc.StatsHandler(otelgrpc.NewServerHandler(t.otelgrpcOptions()...))}
}

// DialOptions instrument a gRPC client connection: a span per call, whose context travels in
// the call's metadata.
func (t *Tracing) DialOptions() []grpc.DialOption {
	if t == nil {
		return nil
	}
	return []grpc.DialOption{grpc.WithStatsHandler(otelgrpc.NewClientHandler(t.otelgrpcOptions()...))}
}

// otelgrpcOptions leave out the gRPC health checks: a load balancer's or Kubernetes' probe
// every few seconds would otherwise be most of the traces, and says nothing of a call's path.
func (t *Tracing) otelgrpcOptions() []otelgrpc.Option {
	return []otelgrpc.Option{otelgrpc.WithTracerProvider(t.provider), otelgrpc.WithPropagators(t.propagator),
		otelgrpc.WithFilter(filters.Not(filters.HealthCheck()))}
}

// Handler instruments an HTTP handler: a span per request, named operation, its parent the
// caller's (a traceparent header).
func (t *Tracing) Handler(h http.Handler, operation string) http.Handler {
	if t == nil {
		return h
	}
	return otelhttp.NewHandler(h, operation, otelhttp.WithTracerProvider(t.provider), otelhttp.WithPropagators(t.propagator))
}

// Shutdown sends the spans not yet exported and stops the provider.
func (t *Tracing) Shutdown(ctx context.Context) error {
	if t == nil || t.shutdown == nil {
		return nil
	}
	return t.shutdown(ctx)
}

// The resource attributes a node sets (OpenTelemetry's semantic conventions).
const (
	serviceName     = attribute.Key("service.name")
	serviceInstance = attribute.Key("service.instance.id")
	serviceVersion  = attribute.Key("service.version")
)
