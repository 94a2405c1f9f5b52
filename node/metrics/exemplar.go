package metrics

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/trace"
)

// traceIDLabel is the exemplar label that names a trace, as Prometheus and Grafana read it.
const traceIDLabel = "trace_id"

// observe records v in o. With exemplars on, an observation made under a sampled span
// carries its trace id as an exemplar, which the OpenMetrics exposition shows beside the
// bucket it fell in: a slow bucket leads to the trace of a call that was slow. Off (tracing
// off), it reads nothing of ctx.
func observe(ctx context.Context, o prometheus.Observer, v float64, exemplars bool) {
	if exemplars {
		if sc := trace.SpanContextFromContext(ctx); sc.IsSampled() {
			if eo, ok := o.(prometheus.ExemplarObserver); ok {
				eo.ObserveWithExemplar(v, prometheus.Labels{traceIDLabel: sc.TraceID().String()})
				return
			}
		}
	}
	o.Observe(v)
}

// EnableExemplars makes the histograms of durations (gRPC handling, Raft apply) carry the
// trace id of a traced call as an exemplar. The node calls it when tracing is on, before it
// serves.
func (m *Metrics) EnableExemplars() {
	m.exemplars = true
	m.GRPC.exemplars = true
}
