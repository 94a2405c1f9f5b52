package e2etest

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"testing"
)

// Scrape GETs http://addr/metrics.
func Scrape(t *testing.T, addr string) string {
	t.Helper()
	code, body := HTTPGet(t, addr, "/metrics")
	if code != http.StatusOK {
		t.Fatalf("GET /metrics on %s: %d", addr, code)
	}
	return body
}

// HTTPGet GETs http://addr+path and returns the status code and body.
func HTTPGet(t *testing.T, addr, path string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), RPCTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s on %s: %v", path, addr, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s on %s: %v", path, addr, err)
	}
	return resp.StatusCode, string(body)
}

// MetricValue finds the sample `name{labels} value` (labels exactly as exported, "" for none).
func MetricValue(t *testing.T, body, series string) float64 {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(series) + ` (\S+)$`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("/metrics has no sample %s", series)
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		t.Fatalf("sample %s = %q: %v", series, m[1], err)
	}
	return v
}
