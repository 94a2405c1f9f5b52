package tracing

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"
)

const (
	// maxSpansBytes bounds the file of spans a test reads: a trace of one identity is a few kB,
	// and a test sends a few.
	maxSpansBytes = 16 << 20
	// traceTimeout bounds the wait for every span of a trace to reach the file: the nodes'
	// batch processors export every 100 ms in the tests (OTEL_BSP_SCHEDULE_DELAY), and the
	// Collector's file exporter flushes every 100 ms (otelcol.yaml).
	traceTimeout = 30 * time.Second
	tracePoll    = 100 * time.Millisecond
)

// span is one span of a trace as the Collector wrote it, with its resource's attributes.
type span struct {
	TraceID, ID, Parent string // hex, as OTLP/JSON spells them; Parent "" for a root
	Name                string
	Kind                int // OTLP's SpanKind: 2 server, 3 client
	Start, End          time.Time
	Service             string            // the resource's service.name
	Instance            string            // the resource's service.instance.id
	Attrs               map[string]string // the span's attributes, values as text
	Links               []string          // the span ids it links to
}

// OTLP's span kinds, as OTLP/JSON numbers them.
const (
	kindServer = 2
	kindClient = 3
)

// otlpTraces is one line of the file exporter's: a batch of spans as OTLP/JSON
// (ExportTraceServiceRequest), grouped by resource and scope.
type otlpTraces struct {
	ResourceSpans []struct {
		Resource struct {
			Attributes []otlpAttr `json:"attributes"`
		} `json:"resource"`
		ScopeSpans []struct {
			Spans []otlpSpan `json:"spans"`
		} `json:"scopeSpans"`
	} `json:"resourceSpans"`
}

type otlpSpan struct {
	TraceID      string     `json:"traceId"`
	SpanID       string     `json:"spanId"`
	ParentSpanID string     `json:"parentSpanId"`
	Name         string     `json:"name"`
	Kind         int        `json:"kind"`
	Start        string     `json:"startTimeUnixNano"`
	End          string     `json:"endTimeUnixNano"`
	Attributes   []otlpAttr `json:"attributes"`
	Links        []struct {
		SpanID string `json:"spanId"`
	} `json:"links"`
}

// otlpAttr is a key and its AnyValue, of which one field is set: {"stringValue": "A"},
// {"intValue": "7"} (a string: JSON numbers cannot hold every int64)...
type otlpAttr struct {
	Key   string         `json:"key"`
	Value map[string]any `json:"value"`
}

func attrMap(attrs []otlpAttr) map[string]string {
	m := make(map[string]string, len(attrs))
	for _, a := range attrs {
		for _, v := range a.Value {
			m[a.Key] = fmt.Sprint(v)
		}
	}
	return m
}

func unixNano(s string) (time.Time, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("timestamp %q: %w", s, err)
	}
	return time.Unix(0, n), nil
}

// errNoTrace is what trace says while the file holds no span of the trace yet.
var errNoTrace = errors.New("no span of the trace in the Collector's file yet")

// trace reads every span of the trace id that the Collector has written so far. A line the
// exporter has not finished (no newline yet) is left for the next read.
func (c *collector) trace(traceID string) ([]span, error) {
	f, err := os.Open(c.Spans)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxSpansBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxSpansBytes {
		return nil, fmt.Errorf("%s: over %d bytes", c.Spans, maxSpansBytes)
	}
	var spans []span
	for n := 1; ; n++ {
		line, rest, complete := bytes.Cut(data, []byte("\n"))
		if !complete {
			break
		}
		data = rest
		var batch otlpTraces
		if err := json.Unmarshal(line, &batch); err != nil {
			return nil, fmt.Errorf("%s, line %d: %w", c.Spans, n, err)
		}
		if spans, err = appendSpans(spans, batch, traceID); err != nil {
			return nil, fmt.Errorf("%s, line %d: %w", c.Spans, n, err)
		}
	}
	if len(spans) == 0 {
		return nil, errNoTrace
	}
	return spans, nil
}

// appendSpans appends the spans of batch that belong to the trace id to spans.
func appendSpans(spans []span, batch otlpTraces, traceID string) ([]span, error) {
	for _, rs := range batch.ResourceSpans {
		res := attrMap(rs.Resource.Attributes)
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				if s.TraceID != traceID {
					continue
				}
				sp := span{
					TraceID: s.TraceID, ID: s.SpanID, Parent: s.ParentSpanID, Name: s.Name, Kind: s.Kind,
					Service: res["service.name"], Instance: res["service.instance.id"], Attrs: attrMap(s.Attributes),
				}
				var err error
				if sp.Start, err = unixNano(s.Start); err != nil {
					return nil, err
				}
				if sp.End, err = unixNano(s.End); err != nil {
					return nil, err
				}
				for _, l := range s.Links {
					sp.Links = append(sp.Links, l.SpanID)
				}
				spans = append(spans, sp)
			}
		}
	}
	return spans, nil
}
