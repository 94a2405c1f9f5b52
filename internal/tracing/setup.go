package tracing

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// Enabled says whether the environment asks for traces: an OTLP endpoint is named
// (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT), the SDK is not
// disabled (OTEL_SDK_DISABLED=true) and the traces exporter is not turned off
// (OTEL_TRACES_EXPORTER=none). Without an endpoint the node makes no span at all, rather than
// sending to the SDK's default address where nothing may listen.
func Enabled(getenv func(string) string) bool {
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") ||
		strings.TrimSpace(getenv("OTEL_TRACES_EXPORTER")) == "none" {
		return false
	}
	return getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
}

// FromEnv sets up tracing as the standard variables describe, for the node tagged node
// running build version; nil (and no error) when Enabled is false. The exporter is OTLP over
// the protocol OTEL_EXPORTER_OTLP_TRACES_PROTOCOL or OTEL_EXPORTER_OTLP_PROTOCOL names
// (http/protobuf when neither does, as the specification says); the SDK reads the sampler
// (OTEL_TRACES_SAMPLER, _ARG), the batch processor's and the exporter's settings itself. The
// resource is service.name=idnode, service.instance.id=node and service.version=version, which
// OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES override. What the SDK fails at (an export
// the receiver refused, a full queue) goes to log as a WARN, through OpenTelemetry's global
// error handler, which FromEnv sets: there is one node in a process that calls it.
func FromEnv(ctx context.Context, getenv func(string) string, node, version string, log *slog.Logger) (*Tracing, error) {
	if !Enabled(getenv) {
		return nil, nil
	}
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		log.Warn("tracing: the OpenTelemetry SDK failed; spans may be lost", "err", err)
	}))
	exp, err := exporter(ctx, getenv)
	if err != nil {
		return nil, err
	}
	res, err := resource.New(ctx,
		resource.WithAttributes(serviceName.String("idnode"), serviceInstance.String(node), serviceVersion.String(version)),
		resource.WithTelemetrySDK(),
		resource.WithFromEnv(), // last, so that the operator's variables win
	)
	if err != nil {
		return nil, fmt.Errorf("tracing resource: %w", err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	return New(tp, node, tp.Shutdown), nil
}

// exporter is the OTLP exporter of the protocol the environment names.
func exporter(ctx context.Context, getenv func(string) string) (*otlptrace.Exporter, error) {
	protocol := getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
	if protocol == "" {
		protocol = getenv("OTEL_EXPORTER_OTLP_PROTOCOL")
	}
	switch strings.TrimSpace(protocol) {
	case "", "http/protobuf":
		return otlptracehttp.New(ctx)
	case "grpc":
		return otlptracegrpc.New(ctx)
	default:
		return nil, fmt.Errorf("OTLP protocol %q: this build exports over grpc or http/protobuf", protocol)
	}
}
