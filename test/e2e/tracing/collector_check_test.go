package tracing

import (
	"testing"

	"github.com/idnode/idnode/test/e2e/e2etest"
	"github.com/idnode/idnode/test/helpers/poll"
)

// TestCollectorGivesBackWhatItReceived sends the Collector a span and its child over
// OTLP/gRPC, as an application would, and reads them back from its file: the receiver and
// the test's reading of it work, whatever the nodes do.
func TestCollectorGivesBackWhatItReceived(t *testing.T) {
	col := startCollector(t)
	tp := applicationTracing(t, col)
	tracer := tp.Tracer("github.com/idnode/idnode/test/e2e/tracing")
	ctx, parent := tracer.Start(e2etest.RPCCtx(t), "parent")
	_, child := tracer.Start(ctx, "child")
	child.End()
	parent.End()
	if err := tp.ForceFlush(ctx); err != nil {
		t.Fatalf("exporting: %v", err)
	}
	traceID := parent.SpanContext().TraceID().String()
	var spans []span
	poll.Until(t, "both spans in the Collector's file", traceTimeout, tracePoll, func() (err error) {
		if spans, err = col.trace(traceID); err == nil && len(spans) < 2 {
			err = errNoTrace
		}
		return err
	})
	byName := map[string]span{}
	for _, s := range spans {
		byName[s.Name] = s
	}
	p, c := byName["parent"], byName["child"]
	if len(spans) != 2 || p.ID != parent.SpanContext().SpanID().String() || c.ID != child.SpanContext().SpanID().String() {
		t.Fatalf("the Collector wrote %+v; want the span parent (%s) and its child (%s)", spans, parent.SpanContext().SpanID(), child.SpanContext().SpanID())
	}
	if c.Parent != p.ID || p.Parent != "" || c.TraceID != traceID || p.Service != clientService || c.Service != clientService {
		t.Errorf("the Collector wrote %+v; want child under parent, of trace %s and service %s", spans, traceID, clientService)
	}
	if !p.Start.Before(p.End) || c.Start.Before(p.Start) || c.End.After(p.End) {
		t.Errorf("times: parent %v–%v, child %v–%v; want the child inside its parent", p.Start, p.End, c.Start, c.End)
	}
}
