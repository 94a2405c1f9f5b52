package tracing

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// Tracing is on only when an OTLP endpoint is named and the SDK is not disabled.
func TestEnabledOnlyWithAnEndpoint(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want bool
	}{
		{map[string]string{}, false},
		{map[string]string{"OTEL_TRACES_SAMPLER": "always_on"}, false},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4317"}, true},
		{map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:4318/v1/traces"}, true},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4317", "OTEL_SDK_DISABLED": "true"}, false},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4317", "OTEL_SDK_DISABLED": "false"}, true},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4317", "OTEL_TRACES_EXPORTER": "none"}, false},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4317", "OTEL_TRACES_EXPORTER": "otlp"}, true},
	} {
		if got := Enabled(func(k string) string { return c.env[k] }); got != c.want {
			t.Errorf("Enabled with %v = %v, want %v", c.env, got, c.want)
		}
	}
}

// fromEnv is FromEnv reading the process environment, which the SDK reads too; it fails t on
// an error and shuts the provider down at the end.
func fromEnv(t *testing.T) *Tracing {
	t.Helper()
	tr, err := FromEnv(context.Background(), os.Getenv, "B", "v1.2.3", slog.Default())
	if err != nil {
		t.Fatalf("FromEnv: %v", err)
	}
	if tr != nil {
		t.Cleanup(func() {
			// Nothing listens at the endpoint: the flush is bound to fail, so it is cut short.
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
			defer cancel()
			_ = tr.Shutdown(ctx)
		})
	}
	return tr
}

// resourceOf is the resource of a span the tracing starts (and never ends, so that nothing
// is exported).
func resourceOf(t *testing.T, tr *Tracing) map[attribute.Key]string {
	t.Helper()
	_, span := tr.tracer.Start(context.Background(), "probe")
	ro, ok := span.(sdktrace.ReadOnlySpan)
	if !ok {
		t.Fatalf("span %T is not the SDK's", span)
	}
	out := map[attribute.Key]string{}
	for _, kv := range ro.Resource().Attributes() {
		out[kv.Key] = kv.Value.String()
	}
	return out
}

// Unset, tracing is off: FromEnv makes no provider at all, and a nil Tracing instruments
// nothing.
func TestFromEnvIsOffWithoutAnEndpoint(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "")
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
	if tr := fromEnv(t); tr != nil {
		t.Fatalf("FromEnv with no endpoint = %v, want nil (off)", tr)
	}
	var off *Tracing
	if off.ServerOptions() != nil || off.DialOptions() != nil {
		t.Error("a nil Tracing instruments something")
	}
}

// The resource names the service idnode, the node and the build, unless the operator's
// variables say otherwise; the sampler is the one the variables name.
func TestFromEnvResourceAndSampler(t *testing.T) {
	for _, protocol := range []string{"", "grpc", "http/protobuf"} {
		t.Run("protocol="+protocol, func(t *testing.T) {
			t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1")
			t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", protocol)
			t.Setenv("OTEL_SERVICE_NAME", "")
			t.Setenv("OTEL_RESOURCE_ATTRIBUTES", "")
			t.Setenv("OTEL_TRACES_SAMPLER", "always_on")
			res := resourceOf(t, fromEnv(t))
			for k, want := range map[attribute.Key]string{serviceName: "idnode", serviceInstance: "B", serviceVersion: "v1.2.3"} {
				if res[k] != want {
					t.Errorf("resource %s = %q, want %q", k, res[k], want)
				}
			}
		})
	}
	t.Run("overridden", func(t *testing.T) {
		t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1")
		t.Setenv("OTEL_SERVICE_NAME", "ids-eu")
		t.Setenv("OTEL_RESOURCE_ATTRIBUTES", "deployment.environment=test,service.instance.id=pod-7")
		res := resourceOf(t, fromEnv(t))
		if res[serviceName] != "ids-eu" || res[serviceInstance] != "pod-7" || res["deployment.environment"] != "test" {
			t.Errorf("resource %v: the variables should win", res)
		}
	})
	t.Run("sampler", func(t *testing.T) {
		t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1")
		t.Setenv("OTEL_TRACES_SAMPLER", "always_off")
		_, span := fromEnv(t).tracer.Start(context.Background(), "probe")
		if span.SpanContext().IsSampled() {
			t.Error("OTEL_TRACES_SAMPLER=always_off sampled a span")
		}
	})
}

// A protocol the build cannot speak is an error at start, not a node that silently exports
// nothing.
func TestFromEnvRefusesAnUnknownProtocol(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1")
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "http/json")
	if tr, err := FromEnv(context.Background(), os.Getenv, "B", "v1", slog.Default()); err == nil {
		_ = tr.Shutdown(context.Background())
		t.Fatal("FromEnv with OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/json: no error")
	}
}

// What the SDK fails at reaches the node's log as a WARN, in the node's format, not as a
// line of the standard library's logger on standard error.
func TestSDKFailuresGoToTheNodesLog(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1")
	var out strings.Builder
	log := slog.New(slog.NewJSONHandler(&out, nil))
	tr, err := FromEnv(context.Background(), os.Getenv, "B", "v1", log)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tr.Shutdown(canceled()) }()
	otel.Handle(errors.New("export refused"))
	if !strings.Contains(out.String(), `"level":"WARN"`) || !strings.Contains(out.String(), "export refused") {
		t.Errorf("the node's log holds %q, want a WARN with the SDK's error", out.String())
	}
}

// canceled is a context that has ended: a flush to a receiver that is not there stops at once.
func canceled() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}
