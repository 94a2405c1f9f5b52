package backups

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idnode/idnode/internal/backupstore"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
	"github.com/idnode/idnode/test/helpers/ledger"
	"github.com/idnode/idnode/test/helpers/poll"
	"github.com/idnode/idnode/test/helpers/prebuilt"
	"github.com/idnode/idnode/test/helpers/s3server"
)

// The drill's times. The production floor of the backup interval is a minute, and a node
// samples its issue rates once a minute; the drill's daemon is the test build (tag
// fastbackups) whose floor and samples are a second, so that "a backup every hour, the
// disaster 40 minutes after the last one" becomes a backup every backupInterval and the
// disaster afterBackup after one, at the load's full rate: the margin by rates (peak rate x
// the backup's age x 2) must then cover afterBackup of load, which it would not if it were
// wrong by more than the factor.
const (
	backupInterval = 10 * time.Second
	// loadBeforeBackup is the least steady load a backup must have seen: its slot starts
	// that long after the load kept its pace (load.waitSteady), two of the test build's rate
	// samples, so its rates are the load's.
	loadBeforeBackup = 2 * time.Second
	// afterBackup is how long after the restored backup's slot began the old cluster dies:
	// within the slot, so that backup is the newest.
	afterBackup = 7 * time.Second
	// newAcks is how many answers the restored clusters must give.
	newAcks = 400
	// loadWorkers are the goroutines asking for identities, server-side IDs, HiLo and numeric IDs.
	loadWorkers = 4
)

// The ledger's stamps: which cluster answered.
const (
	oldCluster int64 = iota
	restoredCluster
	noMarginCluster
)

var stampNames = map[int64]string{oldCluster: "the lost cluster", restoredCluster: "the restored cluster", noMarginCluster: "the cluster restored with --ahead 0"}

// drillPassphrase encrypts the scheduled backups, as docs/scheduled-backups.md advises.
const drillPassphrase = "a drill's passphrase, kept apart from the bucket"

// TestBackupDrill is the drill of docs/restoring.md: three nodes take scheduled backups into a
// bucket on a real S3 server under load of every kind (identities, HiLo ranges, server-side IDs, numeric
// IDs, a fiscal series), each acknowledged answer in a ledger; afterBackup after a backup the
// load saw, all three are killed (SIGKILL) and their data dirs deleted. A new cluster with
// other tags restores the bucket's newest backup by the commands of docs/restoring.md (no
// margin flags: by rates), issues the series numbers the backup missed again for the same
// documents, then takes more of every kind: none may be one the lost cluster acknowledged.
// The same backup restored with --ahead 0 must hand out identities again: the drill can fail.
func TestBackupDrill(t *testing.T) {
	srv := s3server.Shared(t)
	t.Setenv("AWS_ACCESS_KEY_ID", s3server.AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", s3server.SecretKey)
	s3env := []string{"AWS_ACCESS_KEY_ID=" + s3server.AccessKey, "AWS_SECRET_ACCESS_KEY=" + s3server.SecretKey}
	bucket := srv.NewBucket(t)
	target := "s3://" + bucket + "/prod"
	bin := e2etest.BuildIdnodeTagged(t, prebuilt.FastBackupsTag)
	work := t.TempDir()
	passFile := filepath.Join(work, "backup.pass")
	if err := os.WriteFile(passFile, []byte(drillPassphrase+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	store, err := backupstore.NewS3(context.Background(), backupstore.S3Config{Endpoint: srv.Endpoint, Bucket: bucket, Prefix: "prod"})
	if err != nil {
		t.Fatal(err)
	}

	old := startCluster(t, bin, []string{"A", "B", "C"}, []string{
		"--backup-target", target, "--backup-s3-endpoint", srv.Endpoint, "--backup-s3-tls=false",
		"--backup-cluster", "prod", "--backup-interval", backupInterval.String(), "--backup-keep", "100",
		"--backup-passphrase-file", passFile,
	}, s3env)
	ctx, cancel := context.WithTimeout(context.Background(), e2etest.LoadTimeout)
	defer cancel()
	if _, err := old.cl.Series().Create(ctx, &idnodev1.CreateSeriesRequest{Name: seriesName, Format: seriesFormat}); err != nil {
		t.Fatalf("CreateSeries: %v", err)
	}
	describe := func(stamp int64) string { return "from " + stampNames[stamp] }
	led := ledger.New(describe)
	loadStart := time.Now()
	oldLoad := startLoad(old.cl, led, oldCluster, loadWorkers)

	steady := oldLoad.waitSteady(t, loadWorkers)
	backup, slot := waitForBackup(t, store, steady.Add(loadBeforeBackup))
	t.Logf("scheduled backup %s written %v after the load started (steady after %v)", backup,
		time.Since(loadStart).Round(time.Millisecond), steady.Sub(loadStart).Round(time.Millisecond))
	atBackup := led.Acked()
	// The load goes on until the disaster, afterBackup into the backup's slot: a span of the
	// scenario, not a wait for something to happen.
	time.Sleep(time.Until(slot.Add(afterBackup)))
	for _, p := range old.nodes {
		p.Kill9()
	}
	for _, p := range old.nodes {
		if err := os.RemoveAll(p.DataDir); err != nil {
			t.Fatal(err)
		}
	}
	oldLoad.finish(t, "the lost cluster")
	t.Logf("the lost cluster acknowledged %d answers, %d of them after the backup's was written", led.Acked(), led.Acked()-atBackup)
	if newest, err := backupstore.Newest(listStore(t, store)); err != nil || newest != backup {
		t.Fatalf("the bucket's newest backup is %q (%v); the drill restores %s", newest, err, backup)
	}
	oldInvoices := oldLoad.issued()

	restored := startCluster(t, bin, []string{"D", "E", "F"}, nil, nil)
	runRestoringDoc(t, restoreDocSetting{addr: restored.nodes[0].GRPCAddr, target: target, endpoint: srv.Endpoint, backup: backup, dir: work, env: s3env})
	replayInvoices(t, restored, oldInvoices)
	newLed := ledger.New(describe)
	takeMore(t, restored, newLed, restoredCluster)
	if repeats := led.Repeats(newLed); len(repeats) > 0 {
		t.Errorf("the restored cluster handed out %d IDs the lost cluster had acknowledged:\n\t%s", len(repeats), strings.Join(first(repeats, 20), "\n\t"))
	}

	t.Run("WithoutMarginRepeats", func(t *testing.T) {
		// The same backup with --ahead 0: the identities and HiLo ranges the lost cluster
		// issued after the backup come again, and the ledger says so.
		bare := startCluster(t, bin, []string{"G"}, nil, nil)
		e2etest.MustIdctl(t, append(s3env, "IDNODE_BACKUP_S3_TLS=false"), "--addr", bare.nodes[0].GRPCAddr,
			"restore", "--target", target, "--s3-endpoint", srv.Endpoint, "--passphrase-file", passFile, "--ahead", "0", backup)
		bareLed := ledger.New(describe)
		takeMore(t, bare, bareLed, noMarginCluster)
		repeats := led.Repeats(bareLed)
		var identityRepeats []string
		for _, r := range repeats {
			if strings.HasPrefix(r, "identity block") {
				identityRepeats = append(identityRepeats, r)
			}
		}
		t.Logf("without a margin: %d repeats, %d of them identity blocks; the first of those:\n\t%s", len(repeats), len(identityRepeats), strings.Join(first(identityRepeats, 3), "\n\t"))
		if len(identityRepeats) == 0 {
			t.Errorf("restored with --ahead 0, the cluster repeated no identity of the %d answers the lost cluster gave after the backup: the drill cannot tell a margin from none", led.Acked()-atBackup)
		}
	})
}

// waitForBackup waits for a scheduled backup, with its digest, of a slot that starts at or
// after since, and returns its name and slot.
func waitForBackup(t *testing.T, store backupstore.Store, since time.Time) (string, time.Time) {
	t.Helper()
	var name string
	var slot time.Time
	poll.Until(t, "a scheduled backup of a slot from "+since.UTC().Format(time.TimeOnly)+" on", 3*backupInterval, 200*time.Millisecond, func() error {
		newest, err := backupstore.Newest(listStore(t, store))
		if err != nil {
			return err
		}
		_, s, _ := backupstore.ParseScheduledName(newest)
		if s.Before(since.Truncate(time.Second)) {
			return fmt.Errorf("the newest is %s", newest)
		}
		name, slot = newest, s
		return nil
	})
	return name, slot
}

func listStore(t *testing.T, store backupstore.Store) []backupstore.Object {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), e2etest.RPCTimeout)
	defer cancel()
	objects, err := store.List(ctx)
	if err != nil {
		t.Fatalf("listing the bucket: %v", err)
	}
	return objects
}

// replayInvoices issues again, in order and for the same documents, the series numbers the
// lost cluster acknowledged after the backup, as docs/backups.md asks after a restore: each
// must get the number it had.
func replayInvoices(t *testing.T, c *cluster, invoices []invoice) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), e2etest.LoadTimeout)
	defer cancel()
	list, err := c.cl.Series().List(ctx)
	if err != nil {
		t.Fatalf("ListSeries: %v", err)
	}
	var held int64 = -1
	for _, s := range list {
		if s.GetName() == seriesName {
			held = int64(s.GetEntries())
		}
	}
	if held < 0 {
		t.Fatalf("series %s is not in the restored cluster", seriesName)
	}
	replayed := 0
	for _, inv := range invoices {
		if inv.number <= held {
			continue
		}
		e, err := c.cl.Series().Issue(ctx, &idnodev1.IssueRequest{Series: seriesName, RequestId: inv.doc})
		if err != nil {
			t.Fatalf("issuing series %s again for %s: %v", seriesName, inv.doc, err)
		}
		if e.GetNumber() != inv.number {
			t.Fatalf("issued again for %s, series %s answered %d; the lost cluster had answered %d", inv.doc, seriesName, e.GetNumber(), inv.number)
		}
		replayed++
	}
	t.Logf("series %s: the backup held %d entries; %d numbers the lost cluster gave after it issued again for the same documents", seriesName, held, replayed)
}

// takeMore runs the load on c until it gave newAcks answers, each kind at least once.
func takeMore(t *testing.T, c *cluster, led *ledger.Ledger, stamp int64) {
	t.Helper()
	ld := startLoad(c.cl, led, stamp, loadWorkers)
	poll.Until(t, fmt.Sprintf("%d answers from %s", newAcks, stampNames[stamp]), e2etest.LoadTimeout, 50*time.Millisecond, func() error {
		if n := led.Acked(); n < newAcks || led.IDs(serverSideKind) == 0 || led.IDs(numericKind) == 0 || led.IDs(seriesKind) == 0 {
			return fmt.Errorf("%d answers, %d server-side IDs, %d numeric IDs, %d series numbers", n, led.IDs(serverSideKind), led.IDs(numericKind), led.IDs(seriesKind))
		}
		return nil
	})
	ld.finish(t, stampNames[stamp])
}

func first(s []string, n int) []string { return s[:min(n, len(s))] }
