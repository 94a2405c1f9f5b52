package e2etest

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
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

// HTTPDoRetrying is HTTPDo for a call a cluster may refuse while it elects a leader: a 503
// (gRPC's UNAVAILABLE) or 504 (DEADLINE_EXCEEDED) is sent again, as a client would, until
// LeaderTimeout has passed. Only a call that is safe to repeat (a read, or a write with its
// request id) may go through it.
func HTTPDoRetrying(t *testing.T, method, url, body string, header ...string) (int, map[string]any) {
	t.Helper()
	var code int
	var out map[string]any
	_ = WhileRetryable(LeaderTimeout, func(int) error {
		code, out = HTTPDo(t, method, url, body, header...)
		if code == http.StatusServiceUnavailable || code == http.StatusGatewayTimeout {
			return status.Errorf(codes.Unavailable, "%s %s: %d %v", method, url, code, out) // what WhileRetryable retries
		}
		return nil
	})
	return code, out
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
