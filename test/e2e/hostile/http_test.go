package hostile

import (
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/idnode/idnode/test/e2e/e2etest"
	"github.com/idnode/idnode/test/helpers/loopback"
)

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
	c := e2etest.StartClusterWith(t, func(tag string) e2etest.NodeOpts {
		if tag == "A" {
			return e2etest.NodeOpts{HTTPAddr: "0.0.0.0:" + port}
		}
		return e2etest.NodeOpts{}
	})
	base := "http://" + net.JoinHostPort("127.0.0.1", port)

	if code, got := e2etest.HTTPDo(t, "POST", base+"/v1/ids", `{"id":"users|"}`); code != 200 || fmt.Sprint(got["ids"]) != "[users/1]" {
		t.Fatalf(`POST /v1/ids {"id":"users|"} = %d %v, want 200 {"ids":["users/1"]}`, code, got)
	}
	if code, got := e2etest.HTTPDo(t, "POST", base+"/v1/ids", `{"id":"users|","count":3}`); code != 200 || fmt.Sprint(got["ids"]) != "[users/2 users/3 users/4]" {
		t.Fatalf(`POST /v1/ids {"id":"users|","count":3} = %d %v`, code, got)
	}
	code, got := e2etest.HTTPDo(t, "POST", base+"/v1/ids", `{"id":"a\\b"}`)
	if code != http.StatusBadRequest || reasonOf(got) != "INVALID_INPUT" || !strings.Contains(fmt.Sprint(got["message"]), "backslash") {
		t.Fatalf(`POST /v1/ids {"id":"a\\b"} = %d %v; want 400, reason INVALID_INPUT, naming the backslash`, code, got)
	}
	if code, got := e2etest.HTTPDo(t, "POST", base+"/v1/claims", `{"ids":["users/ayende"],"owner":"web"}`); code != 200 {
		t.Fatalf("POST /v1/claims = %d %v", code, got)
	}
	if code, got := e2etest.HTTPDo(t, "POST", base+"/v1/claims", `{"ids":["USERS/ayende"]}`); code != http.StatusConflict || reasonOf(got) != "CLAIMED" {
		t.Fatalf("POST /v1/claims of a claimed ID = %d %v; want 409, reason CLAIMED", code, got)
	}

	// Admin over HTTP follows the gRPC rules: from this machine yes, from the network no.
	if code, got := e2etest.HTTPDo(t, "POST", base+"/v1/databases", `{"name":"billing"}`); code != 200 {
		t.Fatalf("POST /v1/databases over loopback = %d %v", code, got)
	}
	if ip := e2etest.NonLoopbackIP(); ip != "" {
		remote := "http://" + net.JoinHostPort(ip, port)
		code, got := e2etest.HTTPDo(t, "POST", remote+"/v1/nodes", `{"tag":"D","raftAddress":"10.255.0.1:7000","grpcAddress":"10.255.0.1:7070"}`)
		if code != http.StatusForbidden || !strings.Contains(fmt.Sprint(got["message"]), "--admin-token") {
			t.Fatalf("POST /v1/nodes through %s = %d %v; want 403 naming --admin-token", ip, code, got)
		}
		// A header an HTTP client sets cannot pass for the gateway's caller metadata.
		code, _ = e2etest.HTTPDo(t, "POST", remote+"/v1/nodes", `{"tag":"D","raftAddress":"10.255.0.1:7000","grpcAddress":"10.255.0.1:7070"}`,
			"Grpc-Metadata-Idnode-Http-Peer", "127.0.0.1:1", "Idnode-Http-Peer", "127.0.0.1:1")
		if code != http.StatusForbidden {
			t.Fatalf("POST /v1/nodes through %s with a forged peer header = %d; want 403", ip, code)
		}
	}
	if code, got := e2etest.HTTPDo(t, "GET", base+"/v1/status", ""); code != 200 || len(got["nodes"].([]any)) != 3 {
		t.Fatalf("GET /v1/status = %d %v", code, got)
	}
	if code, got := e2etest.HTTPDo(t, "GET", base+"/v1/openapi.json", ""); code != 200 || got["swagger"] != "2.0" || got["paths"].(map[string]any)["/v1/ids"] == nil {
		t.Fatalf("GET /v1/openapi.json = %d, swagger %v", code, got["swagger"])
	}
	for path, want := range map[string]int{"/healthz": 200, "/readyz": 200, "/readyz?local=true": 200} {
		if code, _ := e2etest.HTTPGet(t, strings.TrimPrefix(base, "http://"), path); code != want {
			t.Errorf("GET %s = %d, want %d", path, code, want)
		}
	}

	// A minority refuses at once: NO_QUORUM as 503; /readyz says not ready, local readiness holds.
	for _, tag := range c.Others("A") {
		c.Node(tag).Stop()
	}
	e2etest.Eventually(t, e2etest.LeaderTimeout, "A refuses identities without its majority", func() error {
		code, got := e2etest.HTTPDo(t, "POST", base+"/v1/ids", `{"id":"users|"}`)
		if code != http.StatusServiceUnavailable || reasonOf(got) != "NO_QUORUM" {
			return fmt.Errorf("POST /v1/ids on a minority = %d %v; want 503, reason NO_QUORUM", code, got)
		}
		return nil
	})
	e2etest.Eventually(t, e2etest.LeaderTimeout, "/readyz on a minority says not ready", func() error {
		if code, _ := e2etest.HTTPGet(t, strings.TrimPrefix(base, "http://"), "/readyz"); code != http.StatusServiceUnavailable {
			return fmt.Errorf("GET /readyz on a minority = %d, want 503", code)
		}
		return nil
	})
	if code, _ := e2etest.HTTPGet(t, strings.TrimPrefix(base, "http://"), "/readyz?local=true"); code != 200 {
		t.Errorf("GET /readyz?local=true on a minority = %d, want 200 (server-side IDs still served)", code)
	}
	if code, got := e2etest.HTTPDo(t, "POST", base+"/v1/ids", `{"id":"users/"}`); code != 200 || !strings.HasSuffix(fmt.Sprint(got["ids"]), "-A]") {
		t.Errorf("POST /v1/ids users/ on a minority = %d %v; want a server-side ID", code, got)
	}
}
