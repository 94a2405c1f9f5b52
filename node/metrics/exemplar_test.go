package metrics

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"
)

// scrapeOpenMetrics is scrape asking for OpenMetrics, as a Prometheus that stores exemplars does.
func scrapeOpenMetrics(t *testing.T, h http.Handler) string {
	t.Helper()
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
	req.Header.Set("Accept", "application/openmetrics-text;version=1.0.0")
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK || !strings.HasPrefix(rec.Header().Get("Content-Type"), "application/openmetrics-text") {
		t.Fatalf("GET /metrics for OpenMetrics: %d, %s", rec.Code, rec.Header().Get("Content-Type"))
	}
	return rec.Body.String()
}

// tracedContext carries a span context, sampled or not.
func tracedContext(id byte, sampled bool) context.Context {
	cfg := trace.SpanContextConfig{TraceID: trace.TraceID{id, 0xee}, SpanID: trace.SpanID{id}}
	if sampled {
		cfg.TraceFlags = trace.FlagsSampled
	}
	return trace.ContextWithSpanContext(context.Background(), trace.NewSpanContext(cfg))
}

// With tracing on, the handling time of a call made under a sampled span and the Raft apply
// carry its trace id as an exemplar in the OpenMetrics exposition; an unsampled call's does
// not, nor does any while exemplars are off.
func TestHistogramsCarryTheTraceOfASampledCall(t *testing.T) {
	sampled, unsampled := tracedContext(1, true), tracedContext(2, false)
	wantID := trace.SpanContextFromContext(sampled).TraceID().String()
	for _, on := range []bool{true, false} {
		m := New()
		if on {
			m.EnableExemplars()
		}
		unary := m.GRPC.UnaryServerInterceptor()
		info := &grpc.UnaryServerInfo{FullMethod: generateMethod}
		for _, ctx := range []context.Context{sampled, unsampled} {
			_, _ = unary(ctx, "req", info, func(context.Context, any) (any, error) { return "resp", nil })
		}
		m.RaftApply(sampled, time.Millisecond)
		body := scrapeOpenMetrics(t, m.Handler())
		for _, metric := range []string{"grpc_server_handling_seconds_bucket", "idnode_raft_apply_duration_seconds_bucket"} {
			exemplar := `# {trace_id="` + wantID + `"}`
			found := false
			for line := range strings.Lines(body) {
				if strings.HasPrefix(line, metric) && strings.Contains(line, exemplar) {
					found = true
				}
				if strings.HasPrefix(line, metric) && strings.Contains(line, trace.SpanContextFromContext(unsampled).TraceID().String()) {
					t.Errorf("an unsampled call's trace is an exemplar: %s", line)
				}
			}
			if found != on {
				t.Errorf("exemplars on=%v: a %s line with %s: %v", on, metric, exemplar, found)
			}
		}
	}
}
