package hostile

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/idnode/idnode/test/e2e/e2etest"
	"github.com/idnode/idnode/test/helpers/loopback"
)

// startHTTPNode starts a single node serving HTTP on a port of its own, with extra flags, and
// returns the node and the HTTP base URL (http://127.0.0.1:port).
func startHTTPNode(t *testing.T, extra ...string) (*e2etest.Proc, string) {
	t.Helper()
	addr := loopback.FreeAddr(t)
	p := e2etest.StartNode(t, e2etest.NodeOpts{HTTPAddr: addr, Extra: extra})
	p.WaitServing(e2etest.ServeTimeout)
	return p, "http://" + addr
}

// nextIdentity takes one identity of prefix over HTTP and returns it.
func nextIdentity(t *testing.T, base, prefix string) string {
	t.Helper()
	code, got := e2etest.HTTPDo(t, "POST", base+"/v1/ids", fmt.Sprintf(`{"id":%q}`, prefix+"|"))
	ids, _ := got["ids"].([]any)
	if code != 200 || len(ids) != 1 {
		t.Fatalf("POST /v1/ids %s| = %d %v", prefix, code, got)
	}
	return fmt.Sprint(ids[0])
}

// A web page cannot drive a node's loopback admin. What a browser sends for
// a page's form (text/plain, the page's Origin) or after DNS rebinding (the page's Host) from
// 127.0.0.1 is refused, and the counter it tried to force back keeps counting.
func TestHTTPRefusesWebPages(t *testing.T) {
	t.Parallel()
	_, base := startHTTPNode(t)
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(base, "http://"))
	for range 3 {
		nextIdentity(t, base, "a")
	}
	attack := []string{"Content-Type", "text/plain", "Origin", "http://evil.example", "Host", "evil.example:" + port}
	for _, try := range []struct {
		what, path, body string
		header           []string
		want             int
	}{
		{"a page's form", "/v1/identities/a:seed", `{"value":1,"force":true}`, attack, http.StatusForbidden},
		{"a page's form", "/v1/keys", `{"database":"default","role":"admin"}`, attack, http.StatusForbidden},
		{"a form without Origin", "/v1/keys", `{"database":"default","role":"admin"}`, []string{"Content-Type", "text/plain"}, http.StatusUnsupportedMediaType},
		{"a page's JSON", "/v1/identities/a:seed", `{"value":1,"force":true}`, []string{"Origin", "http://evil.example"}, http.StatusForbidden},
		{"a rebound host name", "/v1/identities/a:seed", `{"value":1,"force":true}`, []string{"Host", "evil.example:" + port}, http.StatusForbidden},
		{"a rebound host name", "/v1/keys", `{"database":"default","role":"admin"}`, []string{"Host", "evil.example:" + port}, http.StatusForbidden},
	} {
		resp, raw := e2etest.HTTPCall(t, "POST", base+try.path, try.body, try.header...)
		if resp.StatusCode != try.want {
			t.Errorf("%s: POST %s %v = %d %s; want %d", try.what, try.path, try.header, resp.StatusCode, raw, try.want)
		}
	}
	if got := nextIdentity(t, base, "a"); got != "a/4" {
		t.Fatalf("after the attempts to force a back to 1, a| = %s; want a/4", got)
	}
	// Loopback spelled any way counts as this machine; other calls take any Host that names the
	// node (TestHTTPRefusesForeignHosts).
	for _, host := range []string{"localhost:" + port, "127.0.0.2:" + port, "[::1]:" + port, "LOCALHOST"} {
		if code, got := e2etest.HTTPDo(t, "POST", base+"/v1/identities/b:seed", `{"value":5,"force":true}`, "Host", host); code != 200 {
			t.Errorf("forced seed with Host %s = %d %v; want 200", host, code, got)
		}
	}
	if code, got := e2etest.HTTPDo(t, "POST", base+"/v1/ids", `{"id":"c|"}`, "Host", "10.1.2.3:"+port); code != 200 {
		t.Errorf("an identity with Host 10.1.2.3 = %d %v; want 200", code, got)
	}
	resp, raw := e2etest.HTTPCall(t, "POST", base+"/v1/ids", `{"id":"c|"}`, "Content-Type", "application/x-www-form-urlencoded")
	if resp.StatusCode != http.StatusUnsupportedMediaType || !strings.Contains(string(raw), "application/json") {
		t.Errorf("a form body = %d %s; want 415 naming application/json", resp.StatusCode, raw)
	}
}

// --http-allowed-origins lets the pages of the origins it names call, with CORS answers.
func TestHTTPAllowedOrigins(t *testing.T) {
	t.Parallel()
	_, base := startHTTPNode(t, "--http-allowed-origins", "https://ops.example.com, http://localhost:3000")
	resp, raw := e2etest.HTTPCall(t, "POST", base+"/v1/ids", `{"id":"a|"}`, "Origin", "https://ops.example.com")
	if resp.StatusCode != 200 || resp.Header.Get("Access-Control-Allow-Origin") != "https://ops.example.com" {
		t.Fatalf("POST from an allowed origin = %d %s, Access-Control-Allow-Origin %q", resp.StatusCode, raw, resp.Header.Get("Access-Control-Allow-Origin"))
	}
	resp, _ = e2etest.HTTPCall(t, "OPTIONS", base+"/v1/ids", "", "Origin", "http://localhost:3000", "Access-Control-Request-Method", "POST",
		"Access-Control-Request-Headers", "content-type")
	if resp.StatusCode != http.StatusNoContent || !strings.Contains(resp.Header.Get("Access-Control-Allow-Methods"), "POST") ||
		!strings.Contains(resp.Header.Get("Access-Control-Allow-Headers"), "Content-Type") {
		t.Fatalf("preflight from an allowed origin = %d %v", resp.StatusCode, resp.Header)
	}
	if resp, raw := e2etest.HTTPCall(t, "POST", base+"/v1/ids", `{"id":"a|"}`, "Origin", "https://ops.example.com.evil.example"); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("POST from another origin = %d %s; want 403", resp.StatusCode, raw)
	}
}

// HTTP where a typo costs data: unknown JSON fields and query parameters are
// 400 naming them, GET mints nothing, a query that contradicts the body is 400, a wrong method
// is 405 with Allow; the OpenAPI description says how to authenticate and lists the probes.
func TestHTTPIsStrict(t *testing.T) {
	t.Parallel()
	_, base := startHTTPNode(t)
	nextIdentity(t, base, "a")
	for _, try := range []struct {
		method, path, body string
		want               int
		names              string // in the message
	}{
		{"POST", "/v1/ids", `{"idd":"users|"}`, http.StatusBadRequest, "idd"},
		{"POST", "/v1/ids?database=x", `{"id":"a|"}`, http.StatusBadRequest, "database"},
		{"POST", "/v1/ids?cuont=2", `{"id":"a|"}`, http.StatusBadRequest, "cuont"},
		{"POST", "/v1/identities/a:seed", `{"name":"b","value":9}`, http.StatusBadRequest, "name"},
		{"GET", "/v1/identities?prefx=a", "", http.StatusBadRequest, "prefx"},
		{"DELETE", "/v1/databases/x?name=y", "", http.StatusBadRequest, "name"},
	} {
		code, got := e2etest.HTTPDo(t, try.method, base+try.path, try.body)
		if code != try.want || reasonOf(got) != "INVALID_INPUT" || !strings.Contains(fmt.Sprint(got["message"]), try.names) {
			t.Errorf("%s %s %s = %d %v; want %d, reason INVALID_INPUT, naming %s", try.method, try.path, try.body, code, got, try.want, try.names)
		}
	}
	for _, try := range []struct{ method, path, allow string }{
		{"GET", "/v1/ids?id=a%7C", "POST"},
		{"PUT", "/v1/ids", "POST"},
		{"DELETE", "/v1/identities", "GET"},
		{"GET", "/v1/nodes/B", "DELETE"},
	} {
		resp, raw := e2etest.HTTPCall(t, try.method, base+try.path, "")
		if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != try.allow {
			t.Errorf("%s %s = %d (Allow %q) %s; want 405, Allow: %s", try.method, try.path, resp.StatusCode, resp.Header.Get("Allow"), raw, try.allow)
		}
	}
	if got := nextIdentity(t, base, "a"); got != "a/2" {
		t.Fatalf("after the refused calls a| = %s; want a/2 (nothing minted)", got)
	}
	if code, got := e2etest.HTTPDo(t, "POST", base+"/v1/ids?database=default", `{"id":"a|","database":"default"}`); code != 200 {
		t.Errorf("a query that repeats the body = %d %v; want 200", code, got)
	}

	code, doc := e2etest.HTTPDo(t, "GET", base+"/v1/openapi.json", "")
	paths, _ := doc["paths"].(map[string]any)
	security, _ := doc["securityDefinitions"].(map[string]any)
	if code != 200 || paths["/healthz"] == nil || paths["/readyz"] == nil || security["bearer"] == nil || paths["/v1/ids"].(map[string]any)["get"] != nil {
		t.Errorf("GET /v1/openapi.json = %d: probes %v %v, security %v, GET /v1/ids %v; want the probes, a bearer scheme, no GET /v1/ids",
			code, paths["/healthz"], paths["/readyz"], security, paths["/v1/ids"])
	}
}

// DNS rebinding: a page on a name its owner re-points at 127.0.0.1 reaches
// the node's HTTP port with that name as Host and, for a GET, no Origin. Every route refuses a
// Host that is not one of the node's own names (an IP address, localhost, the host name of
// its machine or of an address it serves or advertises) or in --http-allowed-hosts.
func TestHTTPRefusesForeignHosts(t *testing.T) {
	t.Parallel()
	_, base := startHTTPNode(t, "--http-allowed-hosts", "ids.example.com")
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(base, "http://"))
	nextIdentity(t, base, "a")
	routes := []string{"/v1/identities", "/v1/status", "/v1/openapi.json", "/v1/history", "/healthz", "/readyz", "/ui/"}
	for _, path := range routes {
		for _, host := range []string{"evil.example:" + port, "evil.example", "127.0.0.1.evil.example:" + port} {
			resp, raw := e2etest.HTTPCall(t, "GET", base+path, "", "Host", host)
			if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(raw), "--http-allowed-hosts") {
				t.Errorf("GET %s with Host %s = %d %.200s; want 403 naming --http-allowed-hosts", path, host, resp.StatusCode, raw)
			}
		}
	}
	if resp, raw := e2etest.HTTPCall(t, "POST", base+"/v1/ids", `{"id":"a|"}`, "Host", "evil.example:"+port); resp.StatusCode != http.StatusForbidden {
		t.Errorf("POST /v1/ids with Host evil.example = %d %s; want 403", resp.StatusCode, raw)
	}
	own := []string{"127.0.0.1:" + port, "localhost:" + port, "LOCALHOST", "[::1]:" + port, "10.1.2.3:" + port, "ids.example.com:" + port, "IDS.example.com"}
	if name, err := os.Hostname(); err == nil && name != "" {
		own = append(own, name+":"+port)
	}
	for _, path := range routes {
		for _, host := range own {
			if resp, raw := e2etest.HTTPCall(t, "GET", base+path, "", "Host", host); resp.StatusCode != http.StatusOK {
				t.Errorf("GET %s with Host %s = %d %.200s; want 200", path, host, resp.StatusCode, raw)
			}
		}
	}
}
