package node

import (
	"bytes"
	"context"
	"os"
	"testing"
	"time"

	"github.com/idnode/idnode/fsm"
	"github.com/idnode/idnode/internal/backupstore"
	"github.com/idnode/idnode/test/helpers/s3server"
)

// TestMain stops the shared S3 server when the tests are done.
func TestMain(m *testing.M) {
	code := m.Run()
	s3server.Stop()
	os.Exit(code)
}

// Against a real S3 server: one backup per slot across a leader change, retention, and a
// backup that restores.
func TestBackupScheduleIntoS3(t *testing.T) {
	srv := s3server.Shared(t)
	t.Setenv("AWS_ACCESS_KEY_ID", s3server.AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", s3server.SecretKey)
	store, err := backupstore.NewS3(context.Background(), backupstore.S3Config{Endpoint: srv.Endpoint, Bucket: srv.NewBucket(t), Prefix: "prod"})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	clock := &testClock{t: start}
	aLeads, bLeads := true, false
	a := newTestScheduler(t, store, clock, &aLeads, nil)
	b := newTestScheduler(t, store, clock, &bLeads, nil)
	for i := range 5 {
		clock.t = start.Add(time.Duration(i)*time.Hour + 10*time.Minute)
		mustCheck(t, a, true)
		aLeads, bLeads = bLeads, aLeads // the other node leads for the rest of the slot
		mustCheck(t, a, false)
		mustCheck(t, b, false)
		a, b = b, a
	}
	want := "idnode-test-20261127T020000Z.idbk idnode-test-20261127T020000Z.idbk.sha256 " +
		"idnode-test-20261127T030000Z.idbk idnode-test-20261127T030000Z.idbk.sha256 " +
		"idnode-test-20261127T040000Z.idbk idnode-test-20261127T040000Z.idbk.sha256"
	if got := names(t, store); got != want {
		t.Fatalf("S3 holds %s\nwant %s", got, want)
	}
	data := readObject(t, store, "idnode-test-20261127T040000Z.idbk")
	if _, err := fsm.ReadBackup(bytes.NewReader(data)); err != nil {
		t.Fatalf("the backup in S3 does not read back: %v", err)
	}
}
