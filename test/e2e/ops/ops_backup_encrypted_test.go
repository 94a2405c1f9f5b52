package ops

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idnode/idnode/internal/backupcrypt"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
)

// encryptedBackupClaims make the backup larger than the 256 KiB the client sends at once, so
// that a restore of a damaged file has sent part of the backup before it finds the damage.
const encryptedBackupClaims = 3000

// TestEncryptedBackupRestoresOnlyWithItsPassphrase backs a one-node cluster up with
// --passphrase-file and restores the file into a new cluster: not without the passphrase,
// not with a wrong one, not from a copy whose last chunk was altered (after the first chunks
// were already sent), and then with the right one, as a plain backup restores.
func TestEncryptedBackupRestoresOnlyWithItsPassphrase(t *testing.T) {
	t.Parallel()
	old := e2etest.StartNode(t, e2etest.NodeOpts{Tag: "P"})
	old.WaitServing(e2etest.ServeTimeout)
	oldAddr := []string{"IDNODE_ADDR=" + old.GRPCAddr}
	ids := idnodev1.NewIdServiceClient(e2etest.DialOver(t, old.GRPCAddr, nil))
	if _, err := ids.Generate(e2etest.RPCCtx(t), &idnodev1.GenerateRequest{Id: "orders|", Count: 42}); err != nil {
		t.Fatal(err)
	}
	claim := func(i int) string { return fmt.Sprintf("documents/%06d-%s", i, strings.Repeat("x", 80)) }
	for from := 0; from < encryptedBackupClaims; from += 1000 {
		req := &idnodev1.ClaimRequest{Owner: "e2e"}
		for i := from; i < from+1000; i++ {
			req.Ids = append(req.Ids, claim(i))
		}
		if _, err := ids.Claim(e2etest.RPCCtx(t), req); err != nil {
			t.Fatal(err)
		}
	}

	dir := t.TempDir()
	passFile, file := filepath.Join(dir, "passphrase"), filepath.Join(dir, "cluster.backup")
	if err := os.WriteFile(passFile, []byte("a passphrase only this test knows\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out := e2etest.MustIdctl(t, oldAddr, "backup", file, "--passphrase-file", passFile)
	if !strings.Contains(out, "written to "+file+", encrypted with the passphrase from --passphrase-file "+passFile) || strings.Contains(out, "opaque-ID keys") {
		t.Errorf("idctl backup --passphrase-file of a cluster without opaque collections: %q", out)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !backupcrypt.IsEncrypted(data) || bytes.Contains(data, []byte("idnode-fsm-snapshot")) || bytes.Contains(data, []byte("documents/")) {
		t.Fatalf("the backup file (%d bytes) is not encrypted: it starts %q", len(data), data[:min(len(data), 40)])
	}
	if len(data) < 300<<10 {
		t.Fatalf("the backup file has %d bytes, want more than the client sends at once", len(data))
	}
	if st, err := os.Stat(file); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("the backup file: %v, %v; want mode 0600", st, err)
	}

	nu := e2etest.StartNode(t, e2etest.NodeOpts{Tag: "Q"})
	nu.WaitServing(e2etest.ServeTimeout)
	newAddr := []string{"IDNODE_ADDR=" + nu.GRPCAddr}
	e2etest.WantIdctlFailure(t, 1, newAddr, []string{"restore", file}, "backup file "+file, "is encrypted: give its passphrase with --passphrase-file FILE or in IDNODE_BACKUP_PASSPHRASE")
	e2etest.WantIdctlFailure(t, 1, append(newAddr, "IDNODE_BACKUP_PASSPHRASE=not the passphrase"), []string{"restore", file}, "wrong passphrase or the file was altered")
	altered := filepath.Join(dir, "altered.backup")
	damaged := bytes.Clone(data)
	damaged[len(damaged)-1] ^= 1
	if err := os.WriteFile(altered, damaged, 0o600); err != nil {
		t.Fatal(err)
	}
	e2etest.WantIdctlFailure(t, 1, newAddr, []string{"restore", altered, "--passphrase-file", passFile}, "Restore", "the file was altered or cut short")

	// None of the refused restores changed the new cluster.
	newIDs := idnodev1.NewIdServiceClient(e2etest.DialOver(t, nu.GRPCAddr, nil))
	lookup := &idnodev1.GetClaimsRequest{Ids: []string{claim(0), claim(encryptedBackupClaims - 1)}}
	if got, err := newIDs.GetClaims(e2etest.RPCCtx(t), lookup); err != nil || len(got.GetClaims()) != 0 {
		t.Fatalf("claims of the backup in the new cluster before its restore: %v, %v; want none", got, err)
	}
	if next, err := newIDs.NextIdentity(e2etest.RPCCtx(t), &idnodev1.NextIdentityRequest{Name: "orders"}); err != nil || next.GetFirst() != 1 {
		t.Fatalf("the new cluster's first orders identity %v, %v; want 1: a refused restore raised it", next, err)
	}

	out = e2etest.MustIdctl(t, newAddr, "restore", file, "--passphrase-file", passFile)
	if !strings.Contains(out, "1 identities (1 raised)") || !strings.Contains(out, fmt.Sprintf("%d claims (%d new here)", encryptedBackupClaims, encryptedBackupClaims)) {
		t.Errorf("restore of the encrypted backup: %q", out)
	}
	if next, err := newIDs.NextIdentity(e2etest.RPCCtx(t), &idnodev1.NextIdentityRequest{Name: "orders"}); err != nil || next.GetFirst() != 43 {
		t.Errorf("first orders identity after the restore %v, %v; want 43", next, err)
	}
	if got, err := newIDs.GetClaims(e2etest.RPCCtx(t), lookup); err != nil || len(got.GetClaims()) != 2 {
		t.Errorf("claims of the backup after its restore: %v, %v; want both", got, err)
	}
}
