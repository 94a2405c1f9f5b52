// Package tracing is the end-to-end test of OpenTelemetry traces: a three-node cluster of
// real idnode processes exports over OTLP to a real receiver, an OpenTelemetry Collector built
// from the Go module proxy (the module of its own in otelcol/), and one identity made through a
// follower must arrive as one trace with every stage of the Raft round, on the node that did
// it. docs/TRACING.md describes the spans.
package tracing

import (
	"testing"

	"github.com/idnode/idnode/test/e2e/e2etest"
)

func TestMain(m *testing.M) { e2etest.Main(m) }
