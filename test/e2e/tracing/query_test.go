package tracing

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
)

const (
	// maxTraceBytes bounds one answer of the query API: a trace of one identity is a few kB.
	maxTraceBytes = 4 << 20
	// traceTimeout bounds the wait for every span of a trace to reach Jaeger: the nodes' batch
	// processors export every 100 ms in the tests (OTEL_BSP_SCHEDULE_DELAY), Jaeger's batch
	// processor stores within 200 ms.
	traceTimeout = 30 * time.Second
	tracePoll    = 100 * time.Millisecond
)

// span is one span of a trace as Jaeger stored it, with its resource's attributes.
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

// OTLP's span kinds, as the query API numbers them.
const (
	kindServer = 2
	kindClient = 3
)

// otlpTrace is the query API's answer (/api/v3/traces/{id}): OTLP/JSON inside "result".
type otlpTrace struct {
	Result struct {
		ResourceSpans []struct {
			Resource struct {
				Attributes []otlpAttr `json:"attributes"`
			} `json:"resource"`
			ScopeSpans []struct {
				Spans []otlpSpan `json:"spans"`
			} `json:"scopeSpans"`
		} `json:"resourceSpans"`
	} `json:"result"`
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

// errNoTrace is the query API's answer while it holds no span of the trace yet.
var errNoTrace = errors.New("no span of the trace in Jaeger yet")

// trace asks Jaeger's query API for every span of the trace id that it holds so far.
func (j *jaeger) trace(traceID string) ([]span, error) {
	resp, err := httpClient.Get(j.Query + "/api/v3/traces/" + traceID)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxTraceBytes+1))
	if err != nil {
		return nil, err
	}
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return nil, errNoTrace
	case resp.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("GET /api/v3/traces/%s: %s: %.200s", traceID, resp.Status, body)
	case len(body) > maxTraceBytes:
		return nil, fmt.Errorf("GET /api/v3/traces/%s: answer over %d bytes", traceID, maxTraceBytes)
	}
	var tr otlpTrace
	if err := json.Unmarshal(body, &tr); err != nil {
		return nil, fmt.Errorf("GET /api/v3/traces/%s: %w", traceID, err)
	}
	var spans []span
	for _, rs := range tr.Result.ResourceSpans {
		res := attrMap(rs.Resource.Attributes)
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				sp := span{
					TraceID: s.TraceID, ID: s.SpanID, Parent: s.ParentSpanID, Name: s.Name, Kind: s.Kind,
					Service: res["service.name"], Instance: res["service.instance.id"], Attrs: attrMap(s.Attributes),
				}
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
