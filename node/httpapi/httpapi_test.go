package httpapi

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/idnode/idnode/proto/idnode/v1/gateway"
)

func TestRoutesFromOpenAPI(t *testing.T) {
	routes, err := readRoutes(gateway.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	for _, try := range []struct {
		method, path, rpc, params, allowed string
	}{
		{"POST", "/v1/ids", "Generate", "map[]", ""},
		{"GET", "/v1/ids", "", "", "POST"},
		{"POST", "/v1/identities/a%2Fb:seed", "SeedIdentity", "map[name:a/b]", ""},
		{"POST", "/v1/identities/:seed", "", "", ""},
		{"GET", "/v1/claims", "GetClaims", "map[]", ""},
		{"PUT", "/v1/claims", "", "", "GET,POST"},
		{"DELETE", "/v1/nodes/B", "RemoveNode", "map[tag:B]", ""},
		{"GET", "/v1/nope", "", "", ""},
		{"POST", "/v1/workers:acquire", "AcquireWorker", "map[]", ""},
		{"POST", "/v1/workers/3:renew", "RenewWorker", "map[worker:3]", ""},
		{"POST", "/v1/workers/3:release", "ReleaseWorker", "map[worker:3]", ""},
		{"GET", "/v1/explain", "Explain", "map[]", ""},
		{"POST", "/v1/databases/shop/opaque", "MakeOpaque", "map[database:shop]", ""},
		{"GET", "/v1/databases/shop/opaque", "", "", "POST"},
	} {
		rt, params, allowed := routes.lookup(try.method, try.path)
		rpc := ""
		if rt.rpc != nil {
			rpc = string(rt.rpc.Name())
		}
		if rpc != try.rpc || (rpc != "" && fmt.Sprint(params) != try.params) ||
			strings.Join(allowed, ",") != try.allowed {
			t.Errorf("%s %s = %q %v allowed %v; want %q %s allowed %q", try.method, try.path, rpc, params, allowed, try.rpc, try.params, try.allowed)
		}
	}
}

func TestCheckQuery(t *testing.T) {
	routes, err := readRoutes(gateway.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	for _, try := range []struct {
		method, path, query, body string
		wantErr                   string // "" for none
	}{
		{"POST", "/v1/ids", "", `{"id":"a|"}`, ""},
		{"POST", "/v1/ids", "database=x", `{"id":"a|"}`, "database=x disagrees with the body"},
		{"POST", "/v1/ids", "database=x", `{"id":"a|","database":"x"}`, ""},
		{"POST", "/v1/ids", "requestId=r1", `{"id":"a|","request_id":"r1"}`, ""},
		{"POST", "/v1/ids", "count=2", `{"id":"a|","count":3}`, "count=2 disagrees"},
		{"POST", "/v1/ids", "cuont=2", `{"id":"a|"}`, `unknown query parameter "cuont"`},
		{"POST", "/v1/identities/a:seed", "", `{"name":"b","value":3}`, "name is b in the body but a in the path"},
		{"POST", "/v1/identities/a:seed", "", `{"name":"a","value":3}`, ""},
		{"POST", "/v1/identities/a:seed", "", `{"n\u0061me":"b","value":3}`, "name is b in the body but a in the path"},
		{"POST", "/v1/identities/a:next", "", `{"count":"2","requestId":"r1"}`, ""},
		{"POST", "/v1/identities/a:next", "count=3", `{"count":"2"}`, "count=3 disagrees"},
		{"GET", "/v1/identities", "prefix=a&page_size=5&pageToken=x", "", ""},
		{"GET", "/v1/identities", "prefix=a&prefx=b", "", `unknown query parameter "prefx"`},
		{"GET", "/v1/identities", "page_size=many", "", "page_size"},
		{"DELETE", "/v1/databases/x", "name=y", "", "disagrees with the path"},
		{"POST", "/v1/restore", "data=x", "{}", "no query parameters"},
		{"POST", "/v1/ids", "id.x=1", `{}`, `unknown query parameter "id.x"`},
		{"GET", "/v1/explain", "id=orders/12-A", "", ""},
		{"POST", "/v1/workers/3:renew", "", `{"worker":4,"epoch":1,"lease_ms":5000}`, "worker is 4 in the body but 3 in the path"},
	} {
		rt, params, _ := routes.lookup(try.method, try.path)
		q, err := url.ParseQuery(try.query)
		if err != nil {
			t.Fatal(err)
		}
		err = checkQuery(rt, params, q, []byte(try.body))
		switch {
		case try.wantErr == "" && err != nil:
			t.Errorf("%s %s?%s %s: %v; want no error", try.method, try.path, try.query, try.body, err)
		case try.wantErr != "" && (err == nil || !strings.Contains(err.Error(), try.wantErr)):
			t.Errorf("%s %s?%s %s: %v; want an error with %q", try.method, try.path, try.query, try.body, err, try.wantErr)
		}
	}
}

func TestParseOrigins(t *testing.T) {
	got, err := ParseOrigins([]string{"https://Ops.Example.com", "http://localhost:3000/"})
	if err != nil || strings.Join(got, " ") != "https://ops.example.com http://localhost:3000" {
		t.Fatalf("ParseOrigins = %v, %v", got, err)
	}
	for _, bad := range []string{"*", "ops.example.com", "https://ops.example.com/app", "ftp://x", "https://u@x", "null"} {
		if _, err := ParseOrigins([]string{bad}); err == nil {
			t.Errorf("ParseOrigins(%q) accepted it", bad)
		}
	}
}

// A browser loads the console's module scripts with the page's own Origin: the console's
// files answer it even for a host name, which the API refuses unless told to allow it. The
// host is one the node is reached by (--http-allowed-hosts): any other Host is refused on
// every route before the origin is looked at (TestHostGuard).
func TestConsoleFilesAreOutsideTheOriginGuard(t *testing.T) {
	conn, err := grpc.NewClient("passthrough:///unused", grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	h, err := newHandler(t.Context(), conn, newCallers(), Options{AllowedHosts: []string{"node1.example"}})
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]int{"/ui/console.js": http.StatusOK, "/v1/status": http.StatusForbidden} {
		req := httptest.NewRequest(http.MethodGet, "http://node1.example:7080"+path, nil)
		req.Header.Set("Origin", "http://node1.example:7080")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != want {
			t.Errorf("GET %s with Origin = %d %s; want %d", path, rec.Code, rec.Body.String(), want)
		}
	}
}

// The node's own origin passes the guard only where no foreign page can have it: an IP
// address or localhost, or TLS. A host name can be a rebinding page's.
func TestOwnOrigin(t *testing.T) {
	for _, tc := range []struct {
		host, origin string
		tls, want    bool
	}{
		{"127.0.0.1:7080", "http://127.0.0.1:7080", false, true},
		{"[::1]:7080", "http://[::1]:7080", false, true},
		{"LOCALHOST:7080", "http://localhost:7080", false, true},
		{"127.0.0.1:7080", "http://127.0.0.1:7081", false, false},
		{"127.0.0.1:7080", "https://127.0.0.1:7080", false, false},
		{"evil.example:7080", "http://evil.example:7080", false, false},
		{"node1.example:7080", "https://node1.example:7080", true, true},
		{"node1.example:7080", "http://node1.example:7080", true, false},
	} {
		r := httptest.NewRequest(http.MethodPost, "/v1/ids", nil)
		r.Host = tc.host
		if !tc.tls {
			r.TLS = nil
		} else if r.TLS == nil {
			r.TLS = &tls.ConnectionState{}
		}
		if got := ownOrigin(r, tc.origin); got != tc.want {
			t.Errorf("ownOrigin(Host %s, TLS %v, Origin %s) = %v; want %v", tc.host, tc.tls, tc.origin, got, tc.want)
		}
	}
}

// Whatever method, path, query and body a caller sends, finding its route and checking its
// query against the body answers without panicking.
func FuzzStrictRequest(f *testing.F) {
	routes, err := readRoutes(gateway.OpenAPI)
	if err != nil {
		f.Fatal(err)
	}
	f.Add("POST", "/v1/ids", "database=x", `{"id":"a|"}`)
	f.Add("POST", "/v1/identities/a%2F:seed", "name=a&value=3", `{"name":"a","value":"3"}`)
	f.Add("GET", "/v1/identities", "prefix=a&page_size=5&page_token=&x.y.z=1", "")
	f.Add("DELETE", "/v1/nodes/%zz", "tag=B", "")
	f.Add("POST", "/v1/hilo/t:next", "lastMax=9223372036854775807&last_range_at=x", `{"lastBatchSize":"-1"}`)
	f.Add("POST", "/v1/claims", "ids=a&ids=b", `{"ids":["a","b"]}`)
	f.Add("POST", "/v1/restore", "", `{"data":"AA=="}{"data":"AA=="}`)
	f.Fuzz(func(t *testing.T, method, path, rawQuery, body string) {
		rt, params, _ := routes.lookup(method, path)
		if rt.rpc == nil {
			return
		}
		query, err := url.ParseQuery(rawQuery)
		if err != nil {
			return
		}
		_ = checkQuery(rt, params, query, []byte(body))
	})
}

// A Host passes when it names the node: an IP address, localhost, a name it was given, or
// none; over TLS any does. A name that merely starts like an address or a listed name is
// foreign.
func TestHostGuard(t *testing.T) {
	h := newHosts([]string{"ids.example.com", "idnode-a"})
	next := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	for _, tc := range []struct {
		host string
		tls  bool
		want int
	}{
		{"127.0.0.1:7080", false, http.StatusOK},
		{"[::1]:7080", false, http.StatusOK},
		{"192.0.2.7", false, http.StatusOK},
		{"LocalHost:7080", false, http.StatusOK},
		{"localhost.", false, http.StatusOK},
		{"IDS.example.com:7080", false, http.StatusOK},
		{"idnode-a", false, http.StatusOK},
		{"", false, http.StatusOK},
		{"evil.example:7080", false, http.StatusForbidden},
		{"127.0.0.1.evil.example", false, http.StatusForbidden},
		{"ids.example.com.evil.example", false, http.StatusForbidden},
		{"localhost.evil.example", false, http.StatusForbidden},
		{"evil.example:7080", true, http.StatusOK},
	} {
		r := httptest.NewRequest(http.MethodGet, "/healthz", nil)
		r.Host = tc.host
		r.TLS = nil
		if tc.tls {
			r.TLS = &tls.ConnectionState{}
		}
		rec := httptest.NewRecorder()
		h.guard(next).ServeHTTP(rec, r)
		if rec.Code != tc.want {
			t.Errorf("GET /healthz with Host %q (TLS %v) = %d %s; want %d", tc.host, tc.tls, rec.Code, rec.Body.String(), tc.want)
		}
	}
	for _, bad := range []string{"ids.example.com:7080", "https://ids.example.com", "*", ".example.com", "a b"} {
		if _, err := ParseHosts([]string{bad}); !errors.Is(err, ErrBadHost) {
			t.Errorf("ParseHosts(%q) = %v; want ErrBadHost", bad, err)
		}
	}
}

// A page of an allowed origin can read the leader hint: a browser hides every response header
// CORS does not expose, and without the hint a client in a page sends every Raft call through
// a follower's extra hop.
func TestAllowedOriginReadsTheLeaderHint(t *testing.T) {
	next := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	h := newOrigins([]string{"http://app.example"}).guard(nil, next)
	req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:7080/v1/ids", nil)
	req.Header.Set("Origin", "http://app.example")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	exposed := strings.ToLower(rec.Header().Get("Access-Control-Expose-Headers"))
	if rec.Code != http.StatusOK || !strings.Contains(exposed, "grpc-metadata-idnode-leader") {
		t.Fatalf("POST from an allowed origin = %d, Access-Control-Expose-Headers %q; want the leader hint exposed", rec.Code, exposed)
	}
}
