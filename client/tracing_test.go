package client

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
	"google.golang.org/grpc"

	"github.com/idnode/idnode/docid"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/helpers/poll"
)

// recordingProvider is an SDK provider that keeps every span it ends.
func recordingProvider() (*sdktrace.TracerProvider, *tracetest.SpanRecorder) {
	rec := tracetest.NewSpanRecorder()
	return sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)), rec
}

// Without a provider of the application's, the client adds no instrumentation: a call pays
// nothing for tracing. With one (the option, or the global one once set), it does.
func TestClientTracesOnlyWithAProviderThatRecords(t *testing.T) {
	if newClientTracing(nil) != nil {
		t.Error("the client traces with OpenTelemetry's global provider unset")
	}
	if newClientTracing(noop.NewTracerProvider()) != nil {
		t.Error("the client traces with noop's provider")
	}
	tp, _ := recordingProvider()
	if newClientTracing(tp) == nil {
		t.Error("the client does not trace with an SDK provider")
	}
	t.Setenv("OTEL_TRACES_SAMPLER", "always_off")
	off, _ := recordingProvider()
	if newClientTracing(off) == nil {
		t.Error("the client does not trace with an SDK provider that samples nothing: its callers' decisions must still travel")
	}
}

// A call is a client span of the application's provider, and its context reaches the node:
// the node's server span is its child.
func TestCallCarriesItsSpanToTheNode(t *testing.T) {
	nodeTP, nodeSpans := recordingProvider()
	n := startFakeNode(t, "A", newFakeState(), grpc.StatsHandler(otelgrpc.NewServerHandler(otelgrpc.WithTracerProvider(nodeTP),
		otelgrpc.WithPropagators(propagation.TraceContext{}))))
	appTP, appSpans := recordingProvider()
	c, err := Dial(context.Background(), []string{n.addr}, WithTracerProvider(appTP))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	ctx, root := appTP.Tracer("app").Start(context.Background(), "app.call")
	if _, err := c.NextIdentityRaw(ctx, &idnodev1.NextIdentityRequest{Name: "orders"}); err != nil {
		t.Fatal(err)
	}
	root.End()
	var client sdktrace.ReadOnlySpan
	for _, s := range appSpans.Ended() {
		if s.SpanKind() == trace.SpanKindClient && s.Name() == "idnode.v1.IdService/NextIdentity" {
			client = s
		}
	}
	if client == nil || client.Parent().SpanID() != root.SpanContext().SpanID() {
		t.Fatalf("no client span of NextIdentity under the application's span: %v", names(appSpans.Ended()))
	}
	server := waitSpan(t, nodeSpans, "idnode.v1.IdService/NextIdentity")
	if server.Parent().SpanID() != client.SpanContext().SpanID() || server.SpanContext().TraceID() != root.SpanContext().TraceID() {
		t.Errorf("the node's span has parent %s in trace %s, want the client span %s in trace %s",
			server.Parent().SpanID(), server.SpanContext().TraceID(), client.SpanContext().SpanID(), root.SpanContext().TraceID())
	}
}

// A folded call is one span, under the first sampled caller's span and linked to the other
// callers'; the call goes out under it.
func TestFoldedCallLinksItsCallers(t *testing.T) {
	tp, rec := recordingProvider()
	tracer := tp.Tracer("app")
	srv := &foldServer{gate: make(chan struct{}), sent: make(chan int64, 8)}
	var mu sync.Mutex
	var sentUnder []trace.SpanContext
	f := newIdentityFold(func(ctx context.Context, name string, count int64, requestID string) (docid.IdentityBlock, error) {
		mu.Lock()
		sentUnder = append(sentUnder, trace.SpanContextFromContext(ctx))
		mu.Unlock()
		return srv.send(ctx, name, count, requestID)
	})
	f.tracer = tp.Tracer(tracerName)

	callerSpans := make([]trace.SpanContext, 4)
	var wg sync.WaitGroup
	call := func(i int) {
		ctx, span := tracer.Start(context.Background(), "caller")
		callerSpans[i] = span.SpanContext()
		wg.Go(func() {
			defer span.End()
			if _, err := f.next(ctx, "orders"); err != nil {
				t.Errorf("caller %d: %v", i, err)
			}
		})
	}
	call(0) // goes out alone and is held
	recv(t, srv.sent)
	for i := 1; i < len(callerSpans); i++ {
		call(i)
	}
	waitQueued(t, f, "orders", len(callerSpans)-1)
	srv.gate <- struct{}{}
	recv(t, srv.sent) // the others' call
	srv.gate <- struct{}{}
	wg.Wait()

	var folds []sdktrace.ReadOnlySpan
	for _, s := range rec.Ended() {
		if s.Name() == spanFold {
			folds = append(folds, s)
		}
	}
	if len(folds) != 2 {
		t.Fatalf("%d fold spans, want 2: %v", len(folds), names(rec.Ended()))
	}
	slices.SortFunc(folds, func(a, b sdktrace.ReadOnlySpan) int { return len(a.Links()) - len(b.Links()) })
	if folds[0].Parent().SpanID() != callerSpans[0].SpanID() || len(folds[0].Links()) != 0 {
		t.Errorf("the lone caller's fold span: parent %s, %d links; want caller 0's span, none", folds[0].Parent().SpanID(), len(folds[0].Links()))
	}
	others := []trace.SpanID{folds[1].Parent().SpanID()}
	for _, l := range folds[1].Links() {
		others = append(others, l.SpanContext.SpanID())
	}
	want := []trace.SpanID{callerSpans[1].SpanID(), callerSpans[2].SpanID(), callerSpans[3].SpanID()}
	if !sameSpanIDs(others, want) {
		t.Errorf("the shared call's fold span: parent and links %v, want callers 1–3 %v", others, want)
	}
	for i, sc := range sentUnder {
		if sc.SpanID() != folds[0].SpanContext().SpanID() && sc.SpanID() != folds[1].SpanContext().SpanID() {
			t.Errorf("call %d went out under span %s, not its fold span", i, sc.SpanID())
		}
	}
}

// waitSpan waits for rec to hold an ended span named name: a server span ends once its
// answer is sent, which may be after the caller has it.
func waitSpan(t *testing.T, rec *tracetest.SpanRecorder, name string) sdktrace.ReadOnlySpan {
	t.Helper()
	var found sdktrace.ReadOnlySpan
	poll.Until(t, "span "+name+" ended", 5*time.Second, 5*time.Millisecond, func() error {
		for _, s := range rec.Ended() {
			if s.Name() == name {
				found = s
				return nil
			}
		}
		return fmt.Errorf("ended spans: %v", names(rec.Ended()))
	})
	return found
}

func sameSpanIDs(a, b []trace.SpanID) bool {
	less := func(x, y trace.SpanID) int { return slices.Compare(x[:], y[:]) }
	return slices.Equal(slices.SortedFunc(slices.Values(a), less), slices.SortedFunc(slices.Values(b), less))
}

func names(spans []sdktrace.ReadOnlySpan) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.Name())
	}
	return out
}
