package ops

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/idnode/idnode/fsm"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
)

// The opaque collection of these tests, in the default database.
const opaqueCollection = "tickets"

// TestOpaqueFormsAcrossBackupAndRestore: a collection made opaque with idctl issues forms, a
// backup is taken with idctl, the old cluster issues more, and the backup is restored into
// fresh clusters (other node tags), which go on issuing. With the same key and the same
// permutation, a value gives the same form on both sides, so the promise about forms is the
// promise about values that docs/backups.md makes ("A margin for what the backup missed"):
//
//   - without a margin, the new cluster gives again exactly the forms the old one issued after
//     the backup, in the same order, and never one issued before it;
//   - with --ahead N, no form of the old cluster comes back (N covers what it issued after the
//     backup), and the first new form is that of the backup's value plus N plus one.
//
// Each new cluster holds the old key (the same fingerprint) and reads the old forms back to
// their values; the restore with a margin reads an encrypted copy of the backup. A restore into
// a cluster whose database already has another key is refused, naming the database, and leaves
// its key as it was.
func TestOpaqueFormsAcrossBackupAndRestore(t *testing.T) {
	t.Parallel()
	old := e2etest.StartCluster(t)
	oldEnv := []string{"IDNODE_ADDR=" + e2etest.AddrsOf(old.Nodes...)}
	e2etest.MustIdctlRetrying(t, oldEnv, "opaque", "make", opaqueCollection) // adds only: safe to repeat
	fingerprint := opaqueFingerprint(t, old.Admin["A"])
	if len(fingerprint) != 16 {
		t.Fatalf("key fingerprint of the opaque database %q: want 8 bytes in hex", fingerprint)
	}

	before := issueForms(t, old.Ids["B"], "before-the-backup", 4, 5) // values 1 … 20
	file := filepath.Join(t.TempDir(), "opaque.backup")
	if out := e2etest.MustIdctlRetrying(t, oldEnv, "backup", file); !strings.Contains(out, "secret") {
		t.Errorf("backup of a cluster holding an opaque key: %q, want it to say the file is a secret", out)
	}
	// The same state again, encrypted with a passphrase: the restore with a margin reads this one,
	// so the key is shown to travel in an encrypted backup too.
	pass := filepath.Join(t.TempDir(), "backup.pass")
	if err := os.WriteFile(pass, []byte("correct horse battery staple opaque\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	encrypted := filepath.Join(t.TempDir(), "opaque.backup.enc")
	e2etest.MustIdctlRetrying(t, oldEnv, "backup", encrypted, "--passphrase-file", pass)
	after := issueForms(t, old.Ids["C"], "after-the-backup", 3, 5) // values 21 … 35, not in the backup
	// The old forms, read back on the old cluster: one counter, from 1 up, in the order issued.
	oldValues := explainForms(t, old.Ids["A"], append(slices.Clone(before), after...))
	for i, v := range oldValues {
		if v != int64(i+1) {
			t.Fatalf("the old cluster's forms read back to %v: want 1 … %d in the order issued", oldValues, len(oldValues))
		}
	}
	backupValue := int64(len(before))

	t.Run("without a margin the forms after the backup come back", func(t *testing.T) {
		t.Parallel()
		ids, admin, env := freshCluster(t, "D")
		e2etest.MustIdctl(t, env, "restore", file, "--ahead", "0")
		if got := opaqueFingerprint(t, admin); got != fingerprint {
			t.Errorf("key fingerprint after the restore %s, want the old cluster's %s", got, fingerprint)
		}
		if got := explainForms(t, ids, before); !slices.Equal(got, oldValues[:len(before)]) {
			t.Errorf("the old forms read back on the new cluster to %v, want %v", got, oldValues[:len(before)])
		}
		issued := issueForms(t, ids, "restored-without-a-margin", 5, 5) // values 21 … 45
		// Exactly the forms the old cluster issued after the backup come back, in order: the
		// same values under the same key. None from before the backup.
		if !slices.Equal(issued[:len(after)], after) {
			t.Errorf("the new cluster's first forms %q, want the old cluster's after the backup %q (the same values, key and permutation)", issued[:len(after)], after)
		}
		seen := setOf(before, after)
		for _, f := range issued[len(after):] {
			if seen[f] {
				t.Errorf("form %s, issued past the old cluster's last value, was the old cluster's", f)
			}
		}
		for _, f := range issued {
			if slices.Contains(before, f) {
				t.Errorf("form %s was issued before the backup, and again after the restore", f)
			}
		}
		if got := explainForms(t, ids, issued[len(after):len(after)+1]); got[0] != backupValue+int64(len(after))+1 {
			t.Errorf("the first form past the old cluster's reads back to %d, want %d", got[0], backupValue+int64(len(after))+1)
		}
	})

	t.Run("with a margin no form of the old cluster comes back", func(t *testing.T) {
		t.Parallel()
		ids, admin, env := freshCluster(t, "E")
		const margin = 1000
		e2etest.MustIdctl(t, env, "restore", encrypted, "--passphrase-file", pass, "--ahead", "1000")
		if got := opaqueFingerprint(t, admin); got != fingerprint {
			t.Errorf("key fingerprint after the restore %s, want the old cluster's %s", got, fingerprint)
		}
		if got := explainForms(t, ids, after); !slices.Equal(got, oldValues[len(before):]) {
			t.Errorf("the old cluster's forms after the backup read back on the new cluster to %v, want %v", got, oldValues[len(before):])
		}
		issued := issueForms(t, ids, "restored-with-a-margin", 5, 5)
		seen := setOf(before, after)
		for _, f := range issued {
			if seen[f] {
				t.Errorf("form %s of the old cluster was issued again after a restore with --ahead %d", f, margin)
			}
		}
		if got := explainForms(t, ids, issued[:1]); got[0] != backupValue+margin+1 {
			t.Errorf("the first form after the restore reads back to %d, want the backup's %d + %d + 1", got[0], backupValue, margin)
		}
	})

	t.Run("a database with another key refuses the restore", func(t *testing.T) {
		t.Parallel()
		_, admin, env := freshCluster(t, "F")
		e2etest.MustIdctl(t, env, "opaque", "make", opaqueCollection)
		own := opaqueFingerprint(t, admin)
		if own == fingerprint {
			t.Fatalf("a new cluster's opaque key has the old cluster's fingerprint %s: keys must be random", own)
		}
		e2etest.WantIdctlFailure(t, 1, env, []string{"restore", file}, fsm.DefaultDatabase)
		if got := opaqueFingerprint(t, admin); got != own {
			t.Errorf("key fingerprint after a refused restore %s, want this cluster's own %s", got, own)
		}
	})
}

// freshCluster starts a one-node cluster tagged tag (not one of the old cluster's tags, which a
// restore retires) and returns its clients and idctl's environment for it.
func freshCluster(t *testing.T, tag string) (idnodev1.IdServiceClient, idnodev1.ClusterServiceClient, []string) {
	t.Helper()
	nodes := e2etest.StartNodes(t, []string{tag}, nil, nil)
	conn := e2etest.DialOver(t, nodes[0].GRPCAddr, nil)
	return idnodev1.NewIdServiceClient(conn), idnodev1.NewClusterServiceClient(conn), []string{"IDNODE_ADDR=" + nodes[0].GRPCAddr}
}

// issueForms makes calls Generate calls of count opaque identities of opaqueCollection and
// returns the forms in the order answered. Each call has a request id made of label, which
// must be new to the cluster and to any backup restored into it, and is asked again with it
// after a refusal for want of a leader, as a client would.
func issueForms(t *testing.T, ids idnodev1.IdServiceClient, label string, calls int, count int64) []string {
	t.Helper()
	var out []string
	for i := range calls {
		req := &idnodev1.GenerateRequest{Id: opaqueCollection + "|", Count: count, RequestId: fmt.Sprintf("%s-%d", label, i)}
		resp, err := e2etest.Retried(func(ctx context.Context) (*idnodev1.GenerateResponse, error) { return ids.Generate(ctx, req) })
		if err != nil {
			t.Fatalf("Generate(%s|, count %d): %v", opaqueCollection, count, err)
		}
		if _, err := e2etest.OpaqueForms(resp.GetIds(), opaqueCollection, '/', count); err != nil {
			t.Fatal(err)
		}
		out = append(out, resp.GetIds()...)
	}
	return out
}

// explainForms reads forms back to their values through Explain, as admin (loopback, no token).
func explainForms(t *testing.T, ids idnodev1.IdServiceClient, forms []string) []int64 {
	t.Helper()
	values := make([]int64, len(forms))
	for i, f := range forms {
		v, err := e2etest.ExplainOpaque(e2etest.RPCCtx(t), ids, "", f)
		if err != nil {
			t.Fatal(err)
		}
		values[i] = v
	}
	return values
}

// opaqueFingerprint is the default database's opaque key fingerprint, as ListDatabases shows it.
func opaqueFingerprint(t *testing.T, admin idnodev1.ClusterServiceClient) string {
	t.Helper()
	resp, err := admin.ListDatabases(e2etest.RPCCtx(t), &idnodev1.ListDatabasesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, db := range resp.GetDatabases() {
		if db.GetName() == fsm.DefaultDatabase {
			return db.GetOpaqueKeyFingerprint()
		}
	}
	t.Fatalf("ListDatabases = %v: no database %s", resp, fsm.DefaultDatabase)
	return ""
}

// setOf is the forms of lists, as a set.
func setOf(lists ...[]string) map[string]bool {
	seen := map[string]bool{}
	for _, l := range lists {
		for _, f := range l {
			seen[f] = true
		}
	}
	return seen
}
