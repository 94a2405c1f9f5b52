package batch

import (
	"context"
	"testing"
	"testing/synctest"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/idnode/idnode/internal/tracing"
)

// spanOf is a committer that records the span its Commit ran under.
type spanOf struct {
	upper
	commitSpan chan trace.SpanContext
}

func (s *spanOf) Commit(ctx context.Context, items []string) ([]string, error) {
	s.commitSpan <- trace.SpanContextFromContext(ctx)
	return s.upper.Commit(ctx, items)
}

// A batch of many callers is one commit span, under the first sampled caller's span and
// linked to every other sampled caller's; each sampled caller gets its own wait span, the
// items of one DoMany one between them, and an unsampled caller none.
func TestBatchSpansParentTheFirstSampledCallerAndLinkTheOthers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := tracetest.NewSpanRecorder()
		tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
		c := &spanOf{upper: upper{gate: make(chan struct{})}, commitSpan: make(chan trace.SpanContext, 2)}
		b := New[string, string](c, Options{MaxInFlight: 1, Tracing: tracing.New(tp, "A", nil), SpanName: "commit"}, failed)
		defer b.Close()

		go b.Do(context.Background(), "untraced") // in flight while the others queue
		synctest.Wait()
		<-c.commitSpan
		caller := func(name string) (context.Context, trace.SpanContext) {
			ctx, span := tp.Tracer("test").Start(context.Background(), name)
			return ctx, span.SpanContext()
		}
		unsampled := trace.ContextWithSpanContext(context.Background(), trace.NewSpanContext(trace.SpanContextConfig{
			TraceID: trace.TraceID{1}, SpanID: trace.SpanID{1}}))
		first, firstSC := caller("first")
		second, secondSC := caller("second")
		many, manySC := caller("many")
		go b.Do(unsampled, "u")
		synctest.Wait()
		go b.Do(first, "a")
		synctest.Wait()
		go b.Do(second, "b")
		synctest.Wait()
		go b.DoMany(many, []string{"m1", "m2"})
		synctest.Wait()
		c.gate <- struct{}{}
		<-c.commitSpan // the batch of u, a, b, m1 and m2
		c.gate <- struct{}{}
		synctest.Wait()

		var commit sdktrace.ReadOnlySpan
		waits := map[trace.SpanID]int{}
		waitLinks := map[trace.SpanID][]sdktrace.Link{}
		for _, s := range rec.Ended() {
			switch s.Name() {
			case "commit":
				commit = s
			case tracing.SpanBatchWait:
				waits[s.Parent().SpanID()]++
				waitLinks[s.Parent().SpanID()] = s.Links()
			}
		}
		if commit == nil {
			t.Fatal("no commit span")
		}
		if commit.Parent().SpanID() != firstSC.SpanID() {
			t.Errorf("commit span's parent %s, want the first sampled caller's %s", commit.Parent().SpanID(), firstSC.SpanID())
		}
		var linked []trace.SpanID
		for _, l := range commit.Links() {
			linked = append(linked, l.SpanContext.SpanID())
		}
		if len(linked) != 2 || linked[0] != secondSC.SpanID() || linked[1] != manySC.SpanID() {
			t.Errorf("commit span links %v, want the other sampled callers [%s %s]", linked, secondSC.SpanID(), manySC.SpanID())
		}
		want := map[trace.SpanID]int{firstSC.SpanID(): 1, secondSC.SpanID(): 1, manySC.SpanID(): 1}
		if len(waits) != len(want) || waits[firstSC.SpanID()] != 1 || waits[secondSC.SpanID()] != 1 || waits[manySC.SpanID()] != 1 {
			t.Errorf("wait spans by parent %v, want one under each sampled caller %v", waits, want)
		}
		if l := waitLinks[firstSC.SpanID()]; len(l) != 0 {
			t.Errorf("the first caller's wait links %v; its commit is its own child", l)
		}
		for _, other := range []trace.SpanID{secondSC.SpanID(), manySC.SpanID()} {
			if l := waitLinks[other]; len(l) != 1 || l[0].SpanContext.SpanID() != commit.SpanContext().SpanID() {
				t.Errorf("caller %s's wait links %v, want the commit span %s", other, l, commit.SpanContext().SpanID())
			}
		}
	})
}

// A batch none of whose callers is sampled makes no span, and Commit runs under no span.
func TestBatchOfUntracedCallersMakesNoSpan(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	c := &spanOf{commitSpan: make(chan trace.SpanContext, 1)}
	b := New[string, string](c, Options{Tracing: tracing.New(tp, "A", nil), SpanName: "commit"}, failed)
	defer b.Close()
	if out, err := b.Do(context.Background(), "x"); err != nil || out != "X" {
		t.Fatalf("Do = %q, %v", out, err)
	}
	if sc := <-c.commitSpan; sc.IsValid() {
		t.Errorf("Commit ran under span %v", sc)
	}
	if n := len(rec.Started()); n != 0 {
		t.Errorf("%d spans started for untraced callers", n)
	}
}

// With tracing on, a caller who is not traced costs the batcher no allocation beyond what it
// costs with tracing off.
func TestUntracedCallerAllocatesAsWithTracingOff(t *testing.T) {
	allocs := func(opts Options) float64 {
		b := New[string, string](&upper{}, opts, failed)
		defer b.Close()
		return testing.AllocsPerRun(200, func() { _, _ = b.Do(context.Background(), "x") })
	}
	tp := sdktrace.NewTracerProvider()
	off, on := allocs(Options{}), allocs(Options{Tracing: tracing.New(tp, "A", nil), SpanName: "commit"})
	if on > off {
		t.Errorf("an untraced caller allocates %.1f times with tracing on, %.1f with it off", on, off)
	}
}

// BenchmarkDoTracing is one caller's Do with tracing off, on with a caller that is not
// traced, and on with a sampled caller (whose spans an SDK provider records and drops):
// go test ./internal/batch -run '^$' -bench DoTracing -benchmem.
func BenchmarkDoTracing(b *testing.B) {
	tp := sdktrace.NewTracerProvider()
	on := Options{Tracing: tracing.New(tp, "A", nil), SpanName: "commit"}
	sampled, span := tp.Tracer("bench").Start(context.Background(), "caller")
	defer span.End()
	for _, c := range []struct {
		name string
		opts Options
		ctx  context.Context
	}{
		{"off", Options{}, context.Background()},
		{"on/untraced", on, context.Background()},
		{"on/sampled", on, sampled},
	} {
		b.Run(c.name, func(b *testing.B) {
			bt := New[string, string](&upper{}, c.opts, failed)
			defer bt.Close()
			b.ReportAllocs()
			for b.Loop() {
				_, _ = bt.Do(c.ctx, "x")
			}
		})
	}
}
