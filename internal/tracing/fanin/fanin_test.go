package fanin

import (
	"testing"

	"go.opentelemetry.io/otel/trace"
)

func spanContext(id byte, sampled bool) trace.SpanContext {
	cfg := trace.SpanContextConfig{TraceID: trace.TraceID{id}, SpanID: trace.SpanID{id}}
	if sampled {
		cfg.TraceFlags = trace.FlagsSampled
	}
	return trace.NewSpanContext(cfg)
}

// The first sampled caller is the parent, the other sampled ones are links, each once; an
// unsampled caller is neither.
func TestFirstSampledCallerIsTheParentAndTheOthersLinks(t *testing.T) {
	var c Callers
	if _, ok := c.Parent(); ok {
		t.Fatal("no caller, yet a parent")
	}
	for _, add := range []struct {
		sc   trace.SpanContext
		want bool
	}{
		{spanContext(1, false), false},
		{trace.SpanContext{}, false},
		{spanContext(2, true), true},
		{spanContext(3, true), true},
		{spanContext(2, true), false}, // a second item of the same caller
		{spanContext(3, true), false},
		{spanContext(4, true), true},
	} {
		if got := c.Add(add.sc); got != add.want {
			t.Errorf("Add(%v) = %v, want %v", add.sc.SpanID(), got, add.want)
		}
	}
	if p, ok := c.Parent(); !ok || p.SpanID() != (trace.SpanID{2}) {
		t.Errorf("parent %v, %v; want span 2", p.SpanID(), ok)
	}
	if l := c.Links(); len(l) != 2 || l[0].SpanContext.SpanID() != (trace.SpanID{3}) || l[1].SpanContext.SpanID() != (trace.SpanID{4}) {
		t.Errorf("links %v, want spans 3 and 4", l)
	}
}

// However many callers a batch has, the span serves at most MaxCallers of them.
func TestCallersAreBounded(t *testing.T) {
	var c Callers
	added := 0
	for i := range 3 * MaxCallers {
		sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{1}, SpanID: trace.SpanID{byte(i), byte(i >> 8), 1}, TraceFlags: trace.FlagsSampled})
		if c.Add(sc) {
			added++
		}
	}
	if added != MaxCallers || len(c.Links()) != MaxCallers-1 {
		t.Errorf("%d callers added, %d links; want %d and %d", added, len(c.Links()), MaxCallers, MaxCallers-1)
	}
}
