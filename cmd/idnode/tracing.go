package main

import (
	"context"
	"log/slog"
	"os"

	"github.com/idnode/idnode/internal/tracing"
	"github.com/idnode/idnode/internal/version"
)

// tracingFromEnv is the node's tracing as the OTEL_* variables describe it (docs/TRACING.md):
// off unless an OTLP endpoint is named. It reads the process environment, as the
// OpenTelemetry SDK does for the settings it reads itself (the sampler, the exporter's).
func tracingFromEnv(tag string, log *slog.Logger) (*tracing.Tracing, error) {
	return tracing.FromEnv(context.Background(), os.Getenv, tag, version.Get().Version, log)
}
