package conformance_test

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/idnode/idnode/client"
	"github.com/idnode/idnode/reason"
	"github.com/idnode/idnode/test/conformance/conformancetest"
)

// The Go client's MakeOpaque and Explain in a database, against a real node; and idcluster's
// topology field opaque, which the opaque scenario's other clients rely on, says what it made.
// The scenario itself (scenarios/opaque.json) covers Generate, NextIdentity and AssignID in
// every client.
func TestGoClientMakesACollectionOpaque(t *testing.T) {
	const token = "go-opaque-admin-token"
	cp := startControlProgram(t, conformancetest.Env(t))
	info, err := cp.start(json.RawMessage(`{"nodes": 1, "databases": ["shop", "vault"], "adminToken": "` + token + `",
		"opaque": [{"database": "shop", "collections": ["Orders"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = cp.send(map[string]any{"cmd": "teardown"}) })
	fingerprint := regexp.MustCompile(`^[0-9a-f]{16}$`)
	if len(info.Opaque) != 1 || info.Opaque[0].Database != "shop" || !slices.Equal(info.Opaque[0].Collections, []string{"orders"}) ||
		!fingerprint.MatchString(info.Opaque[0].KeyFingerprint) {
		t.Fatalf("the cluster object's opaque settings are %+v; want shop's orders and a fingerprint", info.Opaque)
	}
	addr, _ := info.grpcAddr("A")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	admin, err := client.Dial(ctx, []string{addr}, client.WithAdminToken(token))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	status, err := client.MakeOpaque(ctx, admin, "vault", []string{"Invoices"}, false)
	if err != nil {
		t.Fatal(err)
	}
	again, err := client.MakeOpaque(ctx, admin, "vault", []string{"invoices", "credits"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if status.GetDatabase() != "vault" || !slices.Equal(status.GetCollections(), []string{"invoices"}) ||
		!slices.Equal(again.GetCollections(), []string{"credits", "invoices"}) ||
		!fingerprint.MatchString(status.GetKeyFingerprint()) || again.GetKeyFingerprint() != status.GetKeyFingerprint() ||
		status.GetKeyFingerprint() == info.Opaque[0].KeyFingerprint {
		t.Fatalf("MakeOpaque answered %v, then %v; want invoices, then credits added under the same key, not shop's", status, again)
	}

	vault, err := client.Dial(ctx, []string{addr}, client.WithDatabase("vault"))
	if err != nil {
		t.Fatal(err)
	}
	defer vault.Close(ctx)
	ids, err := vault.Generate(ctx, "invoices|", 3)
	if err != nil || len(ids) != 3 {
		t.Fatalf("Generate: %v, %v", ids, err)
	}
	for _, id := range ids {
		if got, err := client.ParseOpaqueID(id, "invoices", '/'); err != nil || got != id {
			t.Errorf("Generate gave %q, which is not an opaque form of invoices: %v", id, err)
		}
	}
	if _, err := vault.NextIdentity(ctx, "invoices", 1); reason.Of(err) != reason.OpaqueCollection {
		t.Errorf("NextIdentity on an opaque collection: %v; want reason %s", err, reason.OpaqueCollection)
	}
	// The Client's database reads its forms: opaque, the value hidden without the admin role.
	seen, err := vault.Explain(ctx, ids[1])
	if err != nil || !seen.GetOpaque() || seen.GetKind() != "identity" || seen.GetNumber() != "" || seen.GetValue() != 0 {
		t.Errorf("Explain(%q) in vault: %v, %v; want an opaque identity with its value hidden", ids[1], seen, err)
	}
	// In another database the form is no ID of an opaque collection.
	if e, err := admin.Explain(ctx, ids[1]); err == nil && e.GetOpaque() {
		t.Errorf("Explain(%q) in default: %v; an opaque form of vault is none of default's", ids[1], e)
	}
	if _, err := vault.Explain(ctx, "invoices/KC6HECSWE6SX"); reason.Of(err) != reason.NotOpaqueForm {
		t.Errorf("Explain of 12 symbols under an opaque collection: %v; want reason %s", err, reason.NotOpaqueForm)
	}
	if _, err := client.MakeOpaque(ctx, vault, "vault", []string{"more"}, false); err == nil || errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("MakeOpaque without the admin token: %v; want it refused", err)
	}
}
