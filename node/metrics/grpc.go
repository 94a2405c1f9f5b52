package metrics

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/reflection"
	"google.golang.org/grpc/status"
)

// GRPCMetrics are the gRPC server metrics (grpc_server_*) with the names, help, labels and
// buckets go-grpc-middleware's Prometheus provider gave them, so dashboards and alerts read them
// as before. Its interceptors count through instruments resolved once per method: the
// provider's resolved every one by its label values on every call (5 label hashes and locks,
// and their slices), 7–9% of a node's CPU under 64 callers of server-side IDs.
type GRPCMetrics struct {
	started  *prometheus.CounterVec
	handled  *prometheus.CounterVec
	received *prometheus.CounterVec
	sent     *prometheus.CounterVec
	seconds  *prometheus.HistogramVec
	// methods holds a *methodMetrics by full method name ("/idnode.v1.IdService/Generate").
	// Interceptors run only for the methods a server registered, so it stays as small as them.
	methods sync.Map
	// exemplars, set before the server serves, adds the trace id of a traced call to its
	// handling time (EnableExemplars).
	exemplars bool
}

// gRPC types, as the grpc_type label names them.
const (
	typeUnary        = "unary"
	typeClientStream = "client_stream"
	typeServerStream = "server_stream"
	typeBidiStream   = "bidi_stream"
)

// newGRPCMetrics creates the metrics, with the handling-time histogram in buckets.
func newGRPCMetrics(buckets []float64) *GRPCMetrics {
	labels := []string{"grpc_type", "grpc_service", "grpc_method"}
	return &GRPCMetrics{
		started: counterVec("grpc_server_started_total", "Total number of RPCs started on the server.", labels...),
		handled: counterVec("grpc_server_handled_total", "Total number of RPCs completed on the server, regardless of success or failure.",
			append(labels[:len(labels):len(labels)], "grpc_code")...),
		received: counterVec("grpc_server_msg_received_total", "Total number of RPC stream messages received on the server.", labels...),
		sent:     counterVec("grpc_server_msg_sent_total", "Total number of gRPC stream messages sent by the server.", labels...),
		seconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "grpc_server_handling_seconds",
			Help:    "Histogram of response latency (seconds) of gRPC that had been application-level handled by the server.",
			Buckets: buckets,
		}, labels),
	}
}

// Describe implements prometheus.Collector.
func (g *GRPCMetrics) Describe(ch chan<- *prometheus.Desc) {
	for _, c := range g.collectors() {
		c.Describe(ch)
	}
}

// Collect implements prometheus.Collector.
func (g *GRPCMetrics) Collect(ch chan<- prometheus.Metric) {
	for _, c := range g.collectors() {
		c.Collect(ch)
	}
}

func (g *GRPCMetrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{g.started, g.handled, g.received, g.sent, g.seconds}
}

// InitializeMetrics shows every method of server at 0 (every code of grpc_server_handled_total
// too) from the first scrape, before any call.
func (g *GRPCMetrics) InitializeMetrics(server reflection.ServiceInfoProvider) {
	for service, info := range server.GetServiceInfo() {
		for _, mi := range info.Methods {
			m := g.method("/"+service+"/"+mi.Name, methodType(mi.IsClientStream, mi.IsServerStream))
			for c := range m.handled {
				m.handledCounter(codes.Code(c))
			}
		}
	}
}

func methodType(clientStream, serverStream bool) string {
	switch {
	case clientStream && serverStream:
		return typeBidiStream
	case clientStream:
		return typeClientStream
	case serverStream:
		return typeServerStream
	default:
		return typeUnary
	}
}

// numCodes is the number of gRPC status codes (OK … Unauthenticated).
const numCodes = int(codes.Unauthenticated) + 1

// methodMetrics are one method's instruments.
type methodMetrics struct {
	started, received, sent prometheus.Counter
	seconds                 prometheus.Observer
	handledVec              *prometheus.CounterVec
	labels                  [3]string // grpc_type, grpc_service, grpc_method
	exemplars               bool      // GRPCMetrics.exemplars
	// handled is grpc_server_handled_total by code, resolved at a code's first call, so that
	// only the codes a method answered show (as with the provider) unless InitializeMetrics ran.
	handled [numCodes]atomic.Pointer[handledCounter]
}

type handledCounter struct{ prometheus.Counter }

// method returns the instruments of fullMethod, which it creates at the method's first call.
func (g *GRPCMetrics) method(fullMethod, typ string) *methodMetrics {
	if m, ok := g.methods.Load(fullMethod); ok {
		return m.(*methodMetrics)
	}
	service, name := splitMethod(fullMethod)
	m := &methodMetrics{
		started:    g.started.WithLabelValues(typ, service, name),
		received:   g.received.WithLabelValues(typ, service, name),
		sent:       g.sent.WithLabelValues(typ, service, name),
		seconds:    g.seconds.WithLabelValues(typ, service, name),
		handledVec: g.handled,
		labels:     [3]string{typ, service, name},
		exemplars:  g.exemplars,
	}
	actual, _ := g.methods.LoadOrStore(fullMethod, m)
	return actual.(*methodMetrics)
}

// splitMethod splits "/package.Service/Method" into its service and method, as the provider did.
func splitMethod(fullMethod string) (string, string) {
	fullMethod = strings.TrimPrefix(fullMethod, "/")
	if i := strings.Index(fullMethod, "/"); i >= 0 {
		return fullMethod[:i], fullMethod[i+1:]
	}
	return "unknown", "unknown"
}

// handledCounter is the method's grpc_server_handled_total of code.
func (m *methodMetrics) handledCounter(code codes.Code) prometheus.Counter {
	if int(code) >= numCodes { // not a code gRPC defines: counted, but not kept
		return m.handledVec.WithLabelValues(m.labels[0], m.labels[1], m.labels[2], code.String())
	}
	if c := m.handled[code].Load(); c != nil {
		return c.Counter
	}
	c := &handledCounter{m.handledVec.WithLabelValues(m.labels[0], m.labels[1], m.labels[2], code.String())}
	m.handled[code].Store(c) // a racing call stores the same counter
	return c.Counter
}

// done counts a call's end: its code and how long it was handled, with the call's trace as
// an exemplar.
func (m *methodMetrics) done(ctx context.Context, err error, start time.Time) {
	m.handledCounter(codeOf(err)).Inc()
	observe(ctx, m.seconds, time.Since(start).Seconds(), m.exemplars)
}

// codeOf returns err's gRPC code. It converts a context error as the gRPC server itself does.
func codeOf(err error) codes.Code {
	if err == nil {
		return codes.OK
	}
	s, ok := status.FromError(err)
	if !ok {
		s = status.FromContextError(err)
	}
	return s.Code()
}

// UnaryServerInterceptor counts unary calls: started, the request received, the answer sent
// (when there is one), handled by code and the handling time.
func (g *GRPCMetrics) UnaryServerInterceptor() grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		start := time.Now()
		m := g.method(info.FullMethod, typeUnary)
		m.started.Inc()
		m.received.Inc()
		resp, err := handler(ctx, req)
		if err == nil {
			m.sent.Inc()
		}
		m.done(ctx, err, start)
		return resp, err
	}
}

// StreamServerInterceptor counts streaming calls: started, every message received and sent,
// handled by code and the handling time.
func (g *GRPCMetrics) StreamServerInterceptor() grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		start := time.Now()
		m := g.method(info.FullMethod, methodType(info.IsClientStream, info.IsServerStream))
		m.started.Inc()
		err := handler(srv, &countedStream{ServerStream: ss, m: m})
		m.done(ss.Context(), err, start)
		return err
	}
}

// countedStream counts the messages of one stream.
type countedStream struct {
	grpc.ServerStream
	m *methodMetrics
}

func (s *countedStream) SendMsg(msg any) error {
	err := s.ServerStream.SendMsg(msg)
	if err == nil {
		s.m.sent.Inc()
	}
	return err
}

func (s *countedStream) RecvMsg(msg any) error {
	err := s.ServerStream.RecvMsg(msg)
	if err == nil {
		s.m.received.Inc()
	}
	return err
}
