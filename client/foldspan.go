package client

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/idnode/idnode/internal/tracing/fanin"
)

// spanFold names the span of one folded call: its parent is the first traced caller's span,
// it links the others (fanin), and the call's own gRPC span is its child.
const spanFold = "idnode.client.fold"

// attrFoldSize is how many callers one folded call serves.
const attrFoldSize = attribute.Key("idnode.batch.size")

// foldSpan is a folded call's span; its zero value, when nothing is traced, does nothing.
type foldSpan struct{ span trace.Span }

// startSpan starts b's span, when the client traces and one of b's callers is sampled, and
// returns ctx carrying it for the call.
func (f *identityFold) startSpan(ctx context.Context, b *foldBatch) (context.Context, foldSpan) {
	if f.tracer == nil {
		return ctx, foldSpan{}
	}
	var callers fanin.Callers
	for _, w := range b.waiters {
		callers.Add(trace.SpanContextFromContext(w.ctx))
	}
	parent, ok := callers.Parent()
	if !ok {
		return ctx, foldSpan{}
	}
	ctx, span := f.tracer.Start(trace.ContextWithSpanContext(ctx, parent), spanFold,
		trace.WithLinks(callers.Links()...), trace.WithAttributes(attrFoldSize.Int(len(b.waiters))))
	return ctx, foldSpan{span}
}

// end ends the span, marking a call that failed.
func (s foldSpan) end(err error) {
	if s.span == nil {
		return
	}
	if err != nil {
		s.span.RecordError(err)
		s.span.SetStatus(codes.Error, err.Error())
	}
	s.span.End()
}
