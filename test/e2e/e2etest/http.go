package e2etest

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// HTTPDo sends method url with body (none when "") and returns the status code and the
// decoded JSON answer. A JSON body goes with Content-Type: application/json unless header
// sets one.
func HTTPDo(t *testing.T, method, url, body string, header ...string) (int, map[string]any) {
	t.Helper()
	resp, raw := HTTPCall(t, method, url, body, header...)
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("%s %s: %d, not JSON: %s", method, url, resp.StatusCode, raw)
	}
	return resp.StatusCode, out
}

// HTTPCall is httpDo's request: it returns the answer and its body, read whole. A header
// "Host" sets the request's Host.
func HTTPCall(t *testing.T, method, url, body string, header ...string) (*http.Response, []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), RPCTimeout*2)
	defer cancel()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		if header[i] == "Host" {
			req.Host = header[i+1]
			continue
		}
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, raw
}
