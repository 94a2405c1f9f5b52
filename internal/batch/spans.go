package batch

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/idnode/idnode/internal/tracing"
)

// maxTracedCallers bounds the callers of one batch that get a wait span and a link, the
// SDK's default limit of links on one span: a batch of thousands stays a bounded cost.
const maxTracedCallers = 128

// batchSpans are the spans of one batch whose callers are traced. Each sampled caller gets
// its own SpanBatchWait span, under its own span, from its arrival to the proposal. The
// commit (Options.SpanName) is one span for the whole batch: its parent is the first sampled
// caller's span and it links to every other's, so a trace viewer shows the commit's stages
// under the first caller and leads from every other caller's wait to them.
type batchSpans struct {
	commit trace.Span
}

// startSpans starts the spans of batch, proposed at proposed, and returns ctx carrying the
// commit span for the Committer. When none of the callers is sampled it starts nothing.
func startSpans[In, Out any](ctx context.Context, t *tracing.Tracing, name string, batch []*request[In, Out], proposed time.Time) (context.Context, batchSpans) {
	var (
		parent context.Context
		seen   []trace.SpanContext
		links  []trace.Link
	)
	size := tracing.AttrBatchSize.Int(len(batch))
	for _, r := range batch {
		sc := trace.SpanContextFromContext(r.ctx)
		if !sc.IsSampled() || len(seen) == maxTracedCallers || containsSpan(seen, sc) {
			continue // the items of one DoMany share their caller's span
		}
		seen = append(seen, sc)
		t.Stage(r.ctx, tracing.SpanBatchWait, r.queued, proposed, size)
		if parent == nil {
			parent = r.ctx
			continue
		}
		links = append(links, trace.Link{SpanContext: sc})
	}
	if parent == nil {
		return ctx, batchSpans{}
	}
	_, span := t.Start(trace.ContextWithSpan(ctx, trace.SpanFromContext(parent)), name, proposed,
		trace.WithLinks(links...), trace.WithAttributes(size))
	return trace.ContextWithSpan(ctx, span), batchSpans{commit: span}
}

func containsSpan(seen []trace.SpanContext, sc trace.SpanContext) bool {
	for _, s := range seen {
		if s.SpanID() == sc.SpanID() && s.TraceID() == sc.TraceID() {
			return true
		}
	}
	return false
}

// end ends the commit span at answered, marking a batch that failed as a whole.
func (s batchSpans) end(answered time.Time, err error) {
	if s.commit == nil {
		return
	}
	if err != nil {
		s.commit.RecordError(err)
		s.commit.SetStatus(codes.Error, err.Error())
	}
	s.commit.End(trace.WithTimestamp(answered))
}
