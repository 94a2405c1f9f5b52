// Command otelcol is the OpenTelemetry Collector that idnode's tracing test, bench/ab.sh and
// docs/TRACING.md run: the Collector's own OTLP receiver (gRPC and HTTP) and contrib's file
// exporter, which writes each batch of spans it receives as one line of OTLP/JSON. It is what
// the Collector's builder (ocb) would generate for those two components, written out by hand
// so that it builds with go build alone; Jaeger, the receiver before it, took ten times as
// long to build (docs/decisions/0046-tracing-test-receiver-is-a-small-collector.md).
package main

import (
	"log"
	"runtime/debug"

	"github.com/open-telemetry/opentelemetry-collector-contrib/exporter/fileexporter"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/provider/envprovider"
	"go.opentelemetry.io/collector/confmap/provider/fileprovider"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/otelcol"
	"go.opentelemetry.io/collector/receiver"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
	"go.opentelemetry.io/collector/service/telemetry/otelconftelemetry"
)

func components() (otelcol.Factories, error) {
	// The Collector's own logs and metrics (service.telemetry in otelcol.yaml).
	f := otelcol.Factories{Telemetry: otelconftelemetry.NewFactory()}
	var err error
	if f.Receivers, err = otelcol.MakeFactoryMap[receiver.Factory](otlpreceiver.NewFactory()); err != nil {
		return f, err
	}
	f.Exporters, err = otelcol.MakeFactoryMap[exporter.Factory](fileexporter.NewFactory())
	return f, err
}

// collectorVersion is the version of the Collector's modules this build pins in go.mod, which
// the Collector reports as its own.
func collectorVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range bi.Deps {
			if dep.Path == "go.opentelemetry.io/collector/otelcol" {
				return dep.Version
			}
		}
	}
	return "unknown"
}

func main() {
	cmd := otelcol.NewCommand(otelcol.CollectorSettings{
		BuildInfo: component.BuildInfo{
			Command:     "otelcol",
			Description: "OpenTelemetry Collector with the OTLP receiver and the file exporter, for idnode's tracing tests",
			Version:     collectorVersion(),
		},
		Factories: components,
		ConfigProviderSettings: otelcol.ConfigProviderSettings{
			ResolverSettings: confmap.ResolverSettings{
				ProviderFactories: []confmap.ProviderFactory{fileprovider.NewFactory(), envprovider.NewFactory()},
			},
		},
	})
	if err := cmd.Execute(); err != nil {
		log.Fatal(err)
	}
}
