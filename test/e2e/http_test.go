package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/idnode/idnode/internal/loopback"
)

// httpDo sends method url with body (none when "") and returns the status code and the
// decoded JSON answer. A JSON body goes with Content-Type: application/json unless header
// sets one.
func httpDo(t *testing.T, method, url, body string, header ...string) (int, map[string]any) {
	t.Helper()
	resp, raw := httpCall(t, method, url, body, header...)
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("%s %s: %d, not JSON: %s", method, url, resp.StatusCode, raw)
	}
	return resp.StatusCode, out
}

// httpCall is httpDo's request: it returns the answer and its body, read whole. A header
// "Host" sets the request's Host.
func httpCall(t *testing.T, method, url, body string, header ...string) (*http.Response, []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), rpcTimeout*2)
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

// reasonOf is the ErrorInfo reason in an HTTP error answer (grpc-gateway's JSON of the status).
func reasonOf(answer map[string]any) string {
	details, _ := answer["details"].([]any)
	for _, d := range details {
		if m, ok := d.(map[string]any); ok && m["reason"] != nil {
			return fmt.Sprint(m["reason"])
		}
	}
	return ""
}

// The HTTP/JSON face, driven with net/http against real processes: the README's one-liner and
// a count, bad input, admin closed to the network, the probes, the OpenAPI description,
// and a node cut off from its majority refusing at once with NO_QUORUM.
func TestHTTPAPI(t *testing.T) {
	t.Parallel()
	port := fmt.Sprint(loopback.FreePort(t))
	c := startClusterWith(t, func(tag string) nodeOpts {
		if tag == "A" {
			return nodeOpts{HTTPAddr: "0.0.0.0:" + port}
		}
		return nodeOpts{}
	})
	base := "http://" + net.JoinHostPort("127.0.0.1", port)

	if code, got := httpDo(t, "POST", base+"/v1/ids", `{"id":"users|"}`); code != 200 || fmt.Sprint(got["ids"]) != "[users/1]" {
		t.Fatalf(`POST /v1/ids {"id":"users|"} = %d %v, want 200 {"ids":["users/1"]}`, code, got)
	}
	if code, got := httpDo(t, "POST", base+"/v1/ids", `{"id":"users|","count":3}`); code != 200 || fmt.Sprint(got["ids"]) != "[users/2 users/3 users/4]" {
		t.Fatalf(`POST /v1/ids {"id":"users|","count":3} = %d %v`, code, got)
	}
	code, got := httpDo(t, "POST", base+"/v1/ids", `{"id":"a\\b"}`)
	if code != http.StatusBadRequest || reasonOf(got) != "INVALID_INPUT" || !strings.Contains(fmt.Sprint(got["message"]), "backslash") {
		t.Fatalf(`POST /v1/ids {"id":"a\\b"} = %d %v; want 400, reason INVALID_INPUT, naming the backslash`, code, got)
	}
	if code, got := httpDo(t, "POST", base+"/v1/claims", `{"ids":["users/ayende"],"owner":"web"}`); code != 200 {
		t.Fatalf("POST /v1/claims = %d %v", code, got)
	}
	if code, got := httpDo(t, "POST", base+"/v1/claims", `{"ids":["USERS/ayende"]}`); code != http.StatusConflict || reasonOf(got) != "CLAIMED" {
		t.Fatalf("POST /v1/claims of a claimed ID = %d %v; want 409, reason CLAIMED", code, got)
	}

	// Admin over HTTP follows the gRPC rules: from this machine yes, from the network no.
	if code, got := httpDo(t, "POST", base+"/v1/databases", `{"name":"billing"}`); code != 200 {
		t.Fatalf("POST /v1/databases over loopback = %d %v", code, got)
	}
	if ip := nonLoopbackIP(); ip != "" {
		remote := "http://" + net.JoinHostPort(ip, port)
		code, got := httpDo(t, "POST", remote+"/v1/nodes", `{"tag":"D","raftAddress":"10.255.0.1:7000","grpcAddress":"10.255.0.1:7070"}`)
		if code != http.StatusForbidden || !strings.Contains(fmt.Sprint(got["message"]), "--admin-token") {
			t.Fatalf("POST /v1/nodes through %s = %d %v; want 403 naming --admin-token", ip, code, got)
		}
		// A header an HTTP client sets cannot pass for the gateway's caller metadata.
		code, _ = httpDo(t, "POST", remote+"/v1/nodes", `{"tag":"D","raftAddress":"10.255.0.1:7000","grpcAddress":"10.255.0.1:7070"}`,
			"Grpc-Metadata-Idnode-Http-Peer", "127.0.0.1:1", "Idnode-Http-Peer", "127.0.0.1:1")
		if code != http.StatusForbidden {
			t.Fatalf("POST /v1/nodes through %s with a forged peer header = %d; want 403", ip, code)
		}
	}
	if code, got := httpDo(t, "GET", base+"/v1/status", ""); code != 200 || len(got["nodes"].([]any)) != 3 {
		t.Fatalf("GET /v1/status = %d %v", code, got)
	}
	if code, got := httpDo(t, "GET", base+"/v1/openapi.json", ""); code != 200 || got["swagger"] != "2.0" || got["paths"].(map[string]any)["/v1/ids"] == nil {
		t.Fatalf("GET /v1/openapi.json = %d, swagger %v", code, got["swagger"])
	}
	for path, want := range map[string]int{"/healthz": 200, "/readyz": 200, "/readyz?local=true": 200} {
		if code, _ := httpGet(t, strings.TrimPrefix(base, "http://"), path); code != want {
			t.Errorf("GET %s = %d, want %d", path, code, want)
		}
	}

	// A minority refuses at once: NO_QUORUM as 503; /readyz says not ready, local readiness holds.
	for _, tag := range c.others("A") {
		c.node(tag).stop()
	}
	eventually(t, leaderTimeout, "A refuses identities without its majority", func() error {
		code, got := httpDo(t, "POST", base+"/v1/ids", `{"id":"users|"}`)
		if code != http.StatusServiceUnavailable || reasonOf(got) != "NO_QUORUM" {
			return fmt.Errorf("POST /v1/ids on a minority = %d %v; want 503, reason NO_QUORUM", code, got)
		}
		return nil
	})
	eventually(t, leaderTimeout, "/readyz on a minority says not ready", func() error {
		if code, _ := httpGet(t, strings.TrimPrefix(base, "http://"), "/readyz"); code != http.StatusServiceUnavailable {
			return fmt.Errorf("GET /readyz on a minority = %d, want 503", code)
		}
		return nil
	})
	if code, _ := httpGet(t, strings.TrimPrefix(base, "http://"), "/readyz?local=true"); code != 200 {
		t.Errorf("GET /readyz?local=true on a minority = %d, want 200 (server-side IDs still served)", code)
	}
	if code, got := httpDo(t, "POST", base+"/v1/ids", `{"id":"users/"}`); code != 200 || !strings.HasSuffix(fmt.Sprint(got["ids"]), "-A]") {
		t.Errorf("POST /v1/ids users/ on a minority = %d %v; want a server-side ID", code, got)
	}
}
