package tracing

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"

	collectorpb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
)

// receiver keeps the resource spans an OTLP receiver was sent, over gRPC or HTTP.
type receiver struct {
	collectorpb.UnimplementedTraceServiceServer
	mu    sync.Mutex
	spans []*tracepb.ResourceSpans
}

func (r *receiver) Export(_ context.Context, req *collectorpb.ExportTraceServiceRequest) (*collectorpb.ExportTraceServiceResponse, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.spans = append(r.spans, req.GetResourceSpans()...)
	return &collectorpb.ExportTraceServiceResponse{}, nil
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(req.Body)
	var msg collectorpb.ExportTraceServiceRequest
	if err != nil || req.URL.Path != "/v1/traces" || proto.Unmarshal(body, &msg) != nil {
		http.Error(w, "not an OTLP traces export", http.StatusBadRequest)
		return
	}
	_, _ = r.Export(req.Context(), &msg)
	out, _ := proto.Marshal(&collectorpb.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

// exported is the name of every span received, and the service.instance.id of its resource.
func (r *receiver) exported() map[string]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]string{}
	for _, rs := range r.spans {
		instance := ""
		for _, kv := range rs.GetResource().GetAttributes() {
			if kv.GetKey() == string(serviceInstance) {
				instance = kv.GetValue().GetStringValue()
			}
		}
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				out[s.GetName()] = instance
			}
		}
	}
	return out
}

// The node's spans reach a receiver over either protocol the variables name, with the
// node's resource, and are sent at Shutdown at the latest.
func TestSpansReachAnOTLPReceiver(t *testing.T) {
	for _, protocol := range []string{"grpc", "http/protobuf"} {
		t.Run(protocol, func(t *testing.T) {
			rec := &receiver{}
			var endpoint string
			if protocol == "grpc" {
				l, err := net.Listen("tcp", "127.0.0.1:0")
				if err != nil {
					t.Fatal(err)
				}
				gs := grpc.NewServer()
				collectorpb.RegisterTraceServiceServer(gs, rec)
				go func() { _ = gs.Serve(l) }()
				defer gs.Stop()
				endpoint = "http://" + l.Addr().String()
			} else {
				hs := httptest.NewServer(rec)
				defer hs.Close()
				endpoint = hs.URL
			}
			t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint)
			t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", protocol)
			t.Setenv("OTEL_TRACES_SAMPLER", "always_on")
			tr, err := FromEnv(context.Background(), os.Getenv, "C", "v1", slog.Default())
			if err != nil {
				t.Fatal(err)
			}
			_, span := tr.tracer.Start(context.Background(), SpanRaftApply)
			span.End()
			if err := tr.Shutdown(context.Background()); err != nil {
				t.Fatalf("Shutdown: %v", err)
			}
			if got := rec.exported(); got[SpanRaftApply] != "C" {
				t.Errorf("the receiver got %v, want %s from node C", got, SpanRaftApply)
			}
		})
	}
}
