package ops

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/idnode/idnode/test/e2e/e2etest"
)

// TestBackupThatHoldsOpaqueKeysSaysItIsASecret makes collections of two databases opaque and
// backs the cluster up: idctl names both databases, says the file is a secret and suggests a
// passphrase; encrypted, it names them still; a backup of one database names that one.
func TestBackupThatHoldsOpaqueKeysSaysItIsASecret(t *testing.T) {
	t.Parallel()
	p := e2etest.StartNode(t, e2etest.NodeOpts{Tag: "K"})
	p.WaitServing(e2etest.ServeTimeout)
	env := []string{"IDNODE_ADDR=" + p.GRPCAddr}
	e2etest.MustIdctl(t, env, "db", "create", "shop")
	e2etest.MustIdctl(t, env, "db", "create", "plain")
	e2etest.MustIdctl(t, env, "--db", "shop", "opaque", "make", "orders")
	e2etest.MustIdctl(t, env, "opaque", "make", "invoices")

	dir := t.TempDir()
	file := filepath.Join(dir, "cluster.backup")
	out := e2etest.MustIdctl(t, env, "backup", file)
	if want := file + " holds the opaque-ID keys of databases default and shop: it is a secret"; !strings.Contains(out, want) ||
		!strings.Contains(out, "idctl backup --passphrase-file FILE encrypts it") {
		t.Errorf("idctl backup of a cluster with two opaque databases: %q, want %q and the hint to encrypt", out, want)
	}

	passFile := filepath.Join(dir, "passphrase")
	if err := os.WriteFile(passFile, []byte("another passphrase of the test\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	raw := e2etest.MustIdctl(t, env, "backup", filepath.Join(dir, "encrypted.backup"), "--passphrase-file", passFile, "--json")
	var answer struct {
		Encrypted   bool     `json:"encrypted"`
		HoldsKeysOf []string `json:"holds_keys_of"`
		Secret      bool     `json:"secret"`
	}
	if err := json.Unmarshal([]byte(raw), &answer); err != nil {
		t.Fatalf("idctl backup --json: %v\n%s", err, raw)
	}
	if !answer.Encrypted || !answer.Secret || !slices.Equal(answer.HoldsKeysOf, []string{"default", "shop"}) {
		t.Errorf("idctl backup --passphrase-file --json: %s", raw)
	}

	for db, want := range map[string]string{"shop": "holds the opaque-ID keys of database shop: it is a secret", "plain": ""} {
		out := e2etest.MustIdctl(t, env, "--db", db, "backup", filepath.Join(dir, db+".backup"))
		if want == "" && strings.Contains(out, "opaque-ID keys") || !strings.Contains(out, want) {
			t.Errorf("idctl --db %s backup: %q, want %q", db, out, want)
		}
	}
}
