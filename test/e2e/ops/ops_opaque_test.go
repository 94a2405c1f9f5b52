package ops

import (
	"encoding/json"
	"net/http"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/idnode/idnode/test/e2e/e2etest"
)

// opaqueFormLine is one ID idctl prints for an opaque collection: orders/ and 13 upper-case
// Crockford symbols.
var opaqueFormLine = regexp.MustCompile(`^orders/[0-9A-HJKMNP-TV-Z]{13}$`)

// idctl opaque make and status, and idctl explain --db, against a three-node loopback cluster
// with an admin token: making a collection opaque is an admin's, its IDs are forms from then
// on, and only the admin reads one back.
func TestIdctlOpaque(t *testing.T) {
	t.Parallel()
	const token = "opaque-idctl-token"
	c := e2etest.StartClusterWith(t, func(string) e2etest.NodeOpts {
		return e2etest.NodeOpts{HTTPAddr: e2etest.FreeAddr(t), Extra: []string{"--admin-token", token}}
	})
	client := []string{"IDNODE_ADDR=" + e2etest.AddrsOf(c.Nodes...)}
	admin := append([]string{"IDNODE_TOKEN=" + token}, client...)
	// A busy machine's cluster may be electing a leader: the writes are made again only after a
	// refusal that says nothing was proposed, the reads after any refusal for want of one.
	e2etest.MustIdctlNothingProposed(t, admin, "db", "create", "shop")

	e2etest.WantIdctlFailure(t, 1, client, []string{"opaque", "make", "--db", "shop", "orders"}, "MakeOpaque", "UNAUTHENTICATED")
	made := e2etest.MustIdctlNothingProposed(t, admin, "opaque", "make", "--database", "shop", "Orders")
	fingerprint := regexp.MustCompile(`(?m)^key fingerprint: +([0-9a-f]{16})$`).FindStringSubmatch(made)
	if fingerprint == nil || !strings.Contains(made, "opaque collections: orders\n") || !strings.Contains(made, "numeric IDs:        plain\n") {
		t.Fatalf("idctl opaque make printed:\n%s", made)
	}
	if shown := e2etest.MustIdctlRetrying(t, client, "opaque", "status", "--db", "shop"); shown != made {
		t.Errorf("idctl opaque status printed:\n%s\nwant what opaque make printed:\n%s", shown, made)
	}
	var status struct {
		Database       string   `json:"database"`
		Collections    []string `json:"collections"`
		Numeric        bool     `json:"numeric"`
		KeyFingerprint string   `json:"key_fingerprint"`
	}
	if err := json.Unmarshal([]byte(e2etest.MustIdctlRetrying(t, client, "opaque", "status", "--db", "shop", "--json")), &status); err != nil ||
		status.Database != "shop" || strings.Join(status.Collections, ",") != "orders" || status.Numeric || status.KeyFingerprint != fingerprint[1] {
		t.Errorf("idctl opaque status --json: %+v, %v", status, err)
	}
	if got := e2etest.MustIdctlRetrying(t, client, "opaque", "status"); got != "database default has no opaque IDs (idctl opaque make)\n" {
		t.Errorf("idctl opaque status of the default database: %q", got)
	}

	// Asked again with its request id after a refusal for want of a leader, as a client would,
	// so that the third form stays number 3.
	ids := strings.Fields(e2etest.MustIdctlRetrying(t, client, "next", "--db", "shop", "orders|", "-n", "3", "--request-id", "opaque-shop-orders"))
	if len(ids) != 3 || ids[0] == ids[1] || ids[1] == ids[2] || ids[0] == ids[2] {
		t.Fatalf("idctl next 'orders|' -n 3 in shop printed %q; want three different forms", ids)
	}
	for _, id := range ids {
		if !opaqueFormLine.MatchString(id) {
			t.Fatalf("idctl next printed %q, not orders/ and 13 Crockford symbols", id)
		}
	}
	read := e2etest.MustIdctlRetrying(t, admin, "explain", "--db", "shop", ids[2])
	if !regexp.MustCompile(`(?m)^opaque +yes$`).MatchString(read) || !regexp.MustCompile(`(?m)^number +3$`).MatchString(read) {
		t.Errorf("idctl explain of %s for the admin printed:\n%s\nwant opaque yes and number 3", ids[2], read)
	}
	hidden := e2etest.MustIdctlRetrying(t, client, "explain", "--db", "shop", ids[2])
	if !strings.Contains(hidden, "opaque") || strings.Contains(hidden, "number") || !strings.Contains(hidden, "admin only") {
		t.Errorf("idctl explain of %s for a client printed:\n%s\nwant opaque, no number, a note", ids[2], hidden)
	}
	e2etest.WantIdctlRefusal(t, 1, client, []string{"explain", "--db", "shop", "orders/ABC"}, "INVALID_ARGUMENT", "not an opaque ID")

	// The HTTP route answers the same setting, and only to the admin: making a collection
	// opaque again only adds, so the call is safe to make again after a refusal.
	url := "http://" + c.Node(c.Leader()).Opts.HTTPAddr + "/v1/databases/shop/opaque"
	if code, body := e2etest.HTTPDoRetrying(t, http.MethodPost, url, `{"collections":["orders"]}`); code != http.StatusUnauthorized {
		t.Fatalf("POST %s with no token: %d %v; want %d", url, code, body, http.StatusUnauthorized)
	}
	code, body := e2etest.HTTPDoRetrying(t, http.MethodPost, url, `{"collections":["orders"]}`, "Authorization", "Bearer "+token)
	want := map[string]any{"database": "shop", "collections": []any{"orders"}, "numeric": false, "keyFingerprint": fingerprint[1]}
	if code != http.StatusOK || !reflect.DeepEqual(body, want) {
		t.Errorf("POST %s with the admin token: %d %v; want %d %v", url, code, body, http.StatusOK, want)
	}

	e2etest.MustIdctlNothingProposed(t, admin, "db", "create", "num")
	if made := e2etest.MustIdctlNothingProposed(t, admin, "opaque", "make", "--db", "num", "--numeric"); !strings.Contains(made, "numeric IDs:        opaque\n") {
		t.Fatalf("idctl opaque make --numeric printed:\n%s", made)
	}
	for _, id := range strings.Fields(e2etest.MustIdctl(t, client, "next", "--db", "num", "--numeric", "-n", "2")) {
		if !regexp.MustCompile(`^[0-9A-HJKMNP-TV-Z]{13}$`).MatchString(id) {
			t.Errorf("idctl next --numeric in an opaque-numeric database printed %q; want 13 Crockford symbols", id)
		}
	}
}
