package node_test

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idnode/idnode/fsm"
	"github.com/idnode/idnode/internal/backupstore"
	"github.com/idnode/idnode/node"
	"github.com/idnode/idnode/node/httpapi"
	"github.com/idnode/idnode/test/helpers/logbuf"
	"github.com/idnode/idnode/test/helpers/loopback"
	"github.com/idnode/idnode/test/helpers/poll"
)

// A node started with a backup store takes the backup of its slot on its own ticker, with no
// admin token: the scheduler writes it with the server's own code, so no admin check is asked
// to let it pass as a loopback caller, and the audit log shows no Backup call nobody made. The
// console's GET /v1/backups then shows it.
func TestScheduledBackupThroughStart(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "backups")
	store, err := backupstore.NewDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var log logbuf.Buffer
	cfg := config(t, t.TempDir(), "A")
	cfg.Logger = slog.New(slog.NewJSONHandler(&log, nil))
	cfg.HTTPAddr = loopback.FreeAddr(t)
	cfg.HTTP.MaxConns = 16
	cfg.Backups = node.BackupSchedule{Store: store, Cluster: "start", Interval: node.MinBackupInterval, Keep: 2}
	n, err := node.Start(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()

	// The ticker fires every tenth of the interval (6 s at the 1 minute floor): the first
	// tick after the node leads takes the slot's backup, and the console's view shows it once
	// the backup and its digest are stored.
	var status httpapi.BackupStatus
	poll.Until(t, "GET /v1/backups showing the scheduled backup", 45*time.Second, 100*time.Millisecond, func() error {
		status = backupStatus(t, n)
		if status.Count == 0 {
			return fmt.Errorf("no backup yet: %+v", status)
		}
		return nil
	})
	if !status.Scheduled || !status.Leader || status.Count != 1 || len(status.Backups) != 1 || status.Backups[0].SizeBytes <= 0 ||
		status.NewestAgeMs == nil || status.Failures != 0 || !strings.Contains(status.Store, dir) {
		t.Fatalf("GET /v1/backups: %+v; want the one backup from the leader", status)
	}
	name := status.Backups[0].Name
	if _, err := os.Stat(filepath.Join(dir, name+".sha256")); err != nil {
		t.Fatalf("the backup's digest: %v", err)
	}
	f, err := os.Open(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := fsm.ReadBackup(f); err != nil {
		t.Fatalf("the scheduled backup does not read back: %v", err)
	}

	for _, line := range strings.Split(log.String(), "\n") {
		if strings.Contains(line, `"admin call`) && strings.Contains(line, `"method":"Backup"`) {
			t.Errorf("the scheduled backup went through the admin path: %s", line)
		}
	}

}

// backupStatus is the node's GET /v1/backups.
func backupStatus(t *testing.T, n *node.Node) httpapi.BackupStatus {
	t.Helper()
	resp, err := http.Get(fmt.Sprintf("http://%s/v1/backups", n.HTTPAddr()))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var status httpapi.BackupStatus
	if err := json.NewDecoder(resp.Body).Decode(&status); err != nil {
		t.Fatal(err)
	}
	return status
}
