package batch

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/idnode/idnode/internal/tracing"
	"github.com/idnode/idnode/internal/tracing/fanin"
)

// batchSpans are the spans of one batch whose callers are traced. The commit
// (Options.SpanName) is one span for the whole batch: its parent is the first sampled
// caller's span and it links to every other's (fanin). Each sampled caller gets its own
// SpanBatchWait span, under its own span, from its arrival to the proposal; every caller's
// but the first links back to the commit. A trace viewer so shows the commit's stages under
// the first caller, and leads from every other caller's wait to them and back.
type batchSpans struct {
	commit trace.Span
}

// startSpans starts the spans of batch, proposed at proposed, and returns ctx carrying the
// commit span for the Committer. When none of the callers is sampled it starts nothing.
func startSpans[In, Out any](ctx context.Context, t *tracing.Tracing, name string, batch []*request[In, Out], proposed time.Time) (context.Context, batchSpans) {
	var callers fanin.Callers
	for _, r := range batch {
		callers.Add(trace.SpanContextFromContext(r.ctx))
	}
	parent, ok := callers.Parent()
	if !ok {
		return ctx, batchSpans{}
	}
	size := trace.WithAttributes(tracing.AttrBatchSize.Int(len(batch)))
	_, span := t.Start(trace.ContextWithSpanContext(ctx, parent), name, proposed, trace.WithLinks(callers.Links()...), size)
	toCommit := trace.WithLinks(trace.Link{SpanContext: span.SpanContext()})
	var waited fanin.Callers // the same callers, each once, in the same order
	for _, r := range batch {
		sc := trace.SpanContextFromContext(r.ctx)
		switch {
		case !waited.Add(sc):
		case sc.Equal(parent):
			t.Stage(r.ctx, tracing.SpanBatchWait, r.queued, proposed, size)
		default:
			t.Stage(r.ctx, tracing.SpanBatchWait, r.queued, proposed, size, toCommit)
		}
	}
	return trace.ContextWithSpan(ctx, span), batchSpans{commit: span}
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
