package httpapi

import (
	"net/url"
	"testing"

	"github.com/idnode/idnode/proto/idnode/v1/gateway"
)

// The strict checks a folded identity call passes on its way to the gateway: its route, and
// its query against its body and path.
func BenchmarkStrictIdentityCall(b *testing.B) {
	routes, err := readRoutes(gateway.OpenAPI)
	if err != nil {
		b.Fatal(err)
	}
	body := []byte(`{"count":"64","requestId":"0123456789abcdef0123456789abcdef"}`)
	b.ReportAllocs()
	for b.Loop() {
		rt, params, _ := routes.lookup("POST", "/v1/identities/orders:next")
		if rt.rpc == nil {
			b.Fatal("no route")
		}
		query, _ := url.ParseQuery("")
		if err := checkQuery(rt, params, query, body); err != nil {
			b.Fatal(err)
		}
	}
}
