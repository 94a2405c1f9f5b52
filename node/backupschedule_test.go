package node

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idnode/idnode/fsm"
	"github.com/idnode/idnode/internal/backupcrypt"
	"github.com/idnode/idnode/internal/backupstore"
)

// testClock is a clock the test moves by hand.
type testClock struct{ t time.Time }

func (c *testClock) now() time.Time { return c.t }

// countingObserver counts the scheduler's outcomes.
type countingObserver struct {
	succeeded, failed int
	last              time.Time
}

func (o *countingObserver) BackupSucceeded(slot time.Time, _ backupstore.Sum) {
	o.succeeded++
	o.last = slot
}
func (o *countingObserver) BackupFailed() { o.failed++ }

// newTestScheduler schedules backups of a fresh FSM into store on clock, leading while
// *leads is true.
func newTestScheduler(t *testing.T, store backupstore.Store, clock *testClock, leads *bool, obs BackupObserver) *backupScheduler {
	t.Helper()
	f := fsm.New()
	sched := BackupSchedule{Store: store, Cluster: "test", Interval: time.Hour, Keep: 3, Observer: obs}
	if err := sched.Validate(); err != nil {
		t.Fatal(err)
	}
	return &backupScheduler{
		sched:    sched,
		isLeader: func() bool { return *leads },
		write: func(_ context.Context, w io.Writer) error {
			return f.WriteBackup(w, fsm.IssueRates{TakenAt: clock.now(), IdentitiesPerSecond: 5})
		},
		now: clock.now,
		log: slog.New(slog.DiscardHandler),
	}
}

func newTestDir(t *testing.T) (*backupstore.Dir, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "backups")
	store, err := backupstore.NewDir(path)
	if err != nil {
		t.Fatal(err)
	}
	return store, path
}

func names(t *testing.T, store backupstore.Store) string {
	t.Helper()
	list, err := store.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, o := range list {
		out = append(out, o.Name)
	}
	return strings.Join(out, " ")
}

func mustCheck(t *testing.T, b *backupScheduler, wantTook bool) {
	t.Helper()
	took, err := b.check(context.Background())
	if err != nil {
		t.Fatalf("check at %v: %v", b.now(), err)
	}
	if took != wantTook {
		t.Fatalf("check at %v took a backup: %v; want %v", b.now(), took, wantTook)
	}
}

func TestBackupScheduleOnePerSlotAcrossALeaderChange(t *testing.T) {
	store, _ := newTestDir(t)
	clock := &testClock{t: time.Date(2026, 11, 27, 20, 10, 0, 0, time.UTC)}
	aLeads, bLeads := true, false
	a := newTestScheduler(t, store, clock, &aLeads, nil)
	b := newTestScheduler(t, store, clock, &bLeads, nil)

	mustCheck(t, a, true)
	mustCheck(t, b, false) // a follower never acts
	clock.t = clock.t.Add(20 * time.Minute)
	mustCheck(t, a, false) // the slot is taken

	// The leadership moves to b in the same slot: b finds the slot's backup and leaves it.
	aLeads, bLeads = false, true
	mustCheck(t, b, false)
	mustCheck(t, a, false)
	// The next slot is b's to take, once.
	clock.t = clock.t.Add(time.Hour)
	mustCheck(t, b, true)
	mustCheck(t, b, false)

	// A leader change before the slot's backup: the new leader takes it.
	clock.t = clock.t.Add(time.Hour)
	aLeads, bLeads = true, false
	mustCheck(t, a, true)

	want := "idnode-test-20261127T200000Z.idbk idnode-test-20261127T200000Z.idbk.sha256 " +
		"idnode-test-20261127T210000Z.idbk idnode-test-20261127T210000Z.idbk.sha256 " +
		"idnode-test-20261127T220000Z.idbk idnode-test-20261127T220000Z.idbk.sha256"
	if got := names(t, store); got != want {
		t.Fatalf("store holds %s\nwant %s", got, want)
	}
}

// The backup restores, and its digest object holds the SHA-256 of its bytes.
func TestBackupScheduleWritesARestorableBackup(t *testing.T) {
	store, _ := newTestDir(t)
	clock := &testClock{t: time.Date(2026, 11, 27, 20, 0, 0, 0, time.UTC)}
	leads := true
	obs := &countingObserver{}
	b := newTestScheduler(t, store, clock, &leads, obs)
	mustCheck(t, b, true)
	if obs.succeeded != 1 || !obs.last.Equal(clock.t) {
		t.Fatalf("observer: %+v; want one success at %v", obs, clock.t)
	}
	name := b.sched.slotName(clock.t)
	data := readObject(t, store, name)
	backup, err := fsm.ReadBackup(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("the scheduled backup does not read back: %v", err)
	}
	if backup.Rates.IdentitiesPerSecond != 5 {
		t.Errorf("the backup's rates: %+v; want the cluster's", backup.Rates)
	}
	digest := string(readObject(t, store, name+backupstore.DigestExt))
	sum := sha256.Sum256(data)
	if want := hex.EncodeToString(sum[:]) + "  " + name + "\n"; digest != want {
		t.Errorf("digest object %q; want %q", digest, want)
	}
}

func readObject(t *testing.T, store backupstore.Store, name string) []byte {
	t.Helper()
	r, err := store.Open(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	data, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestBackupScheduleEncryptsWithAPassphrase(t *testing.T) {
	store, _ := newTestDir(t)
	clock := &testClock{t: time.Date(2026, 11, 27, 20, 0, 0, 0, time.UTC)}
	leads := true
	b := newTestScheduler(t, store, clock, &leads, nil)
	b.sched.Passphrase = []byte("correct horse")
	mustCheck(t, b, true)
	data := readObject(t, store, b.sched.slotName(clock.t))
	if !backupcrypt.IsEncrypted(data) {
		t.Fatal("the backup is not encrypted")
	}
	r, err := backupcrypt.NewReader(bytes.NewReader(data), []byte("correct horse"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fsm.ReadBackup(r); err != nil {
		t.Fatalf("the decrypted backup does not read back: %v", err)
	}
}

func TestBackupSchedulePrunesToRetention(t *testing.T) {
	store, _ := newTestDir(t)
	start := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	clock := &testClock{t: start}
	leads := true
	b := newTestScheduler(t, store, clock, &leads, nil)
	// Another cluster's backup and a stray file share the store; retention leaves them.
	for _, other := range []string{"idnode-other-20261101T000000Z.idbk", "notes.txt"} {
		if _, err := store.Put(context.Background(), other, strings.NewReader("x")); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 5 {
		clock.t = start.Add(time.Duration(i) * time.Hour)
		mustCheck(t, b, true)
	}
	want := "idnode-other-20261101T000000Z.idbk " +
		"idnode-test-20261127T020000Z.idbk idnode-test-20261127T020000Z.idbk.sha256 " +
		"idnode-test-20261127T030000Z.idbk idnode-test-20261127T030000Z.idbk.sha256 " +
		"idnode-test-20261127T040000Z.idbk idnode-test-20261127T040000Z.idbk.sha256 notes.txt"
	if got := names(t, store); got != want {
		t.Fatalf("after 5 backups keeping 3, the store holds %s\nwant %s", got, want)
	}

	// By age: only backups within 90 minutes of the newest stay; by count there is no bound.
	b.sched.Keep, b.sched.MaxAge = 0, 90*time.Minute
	clock.t = start.Add(5 * time.Hour)
	mustCheck(t, b, true)
	if got := names(t, store); !strings.Contains(got, "T040000Z.idbk ") || strings.Contains(got, "T030000Z") {
		t.Fatalf("after pruning by age the store holds %s; want 04:00 and 05:00 only", got)
	}

	// The newest is kept whatever its age.
	b.sched.MaxAge = time.Nanosecond
	clock.t = start.Add(6 * time.Hour)
	mustCheck(t, b, true)
	if got := names(t, store); !strings.Contains(got, "T060000Z.idbk ") || strings.Contains(got, "T050000Z") {
		t.Fatalf("after pruning by a tiny age the store holds %s; want the newest only", got)
	}
}

// A store that cannot be written fails the slot's backup, counted, without a retry in the
// same slot; the next slot's backup succeeds once the store is writable again. The folder is
// replaced by a file, which no user (root included) can write into.
func TestBackupScheduleFailureRetriedAtNextSlot(t *testing.T) {
	store, path := newTestDir(t)
	clock := &testClock{t: time.Date(2026, 11, 27, 20, 0, 0, 0, time.UTC)}
	leads := true
	obs := &countingObserver{}
	b := newTestScheduler(t, store, clock, &leads, obs)
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := b.check(context.Background()); err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("check into a file, not a folder: %v; want an error naming it", err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(path, 0o700); err != nil {
		t.Fatal(err)
	}
	clock.t = clock.t.Add(30 * time.Minute)
	mustCheck(t, b, false) // the failed slot waits for the next
	clock.t = clock.t.Add(30 * time.Minute)
	mustCheck(t, b, true)
	if obs.failed != 1 || obs.succeeded != 1 {
		t.Fatalf("observer: %d failed, %d succeeded; want 1 and 1", obs.failed, obs.succeeded)
	}
}

// run checks at each tick the test sends, and only then.
func TestBackupScheduleRunsOnTicks(t *testing.T) {
	store, _ := newTestDir(t)
	clock := &testClock{t: time.Date(2026, 11, 27, 20, 0, 0, 0, time.UTC)}
	leads := true
	b := newTestScheduler(t, store, clock, &leads, nil)
	ticks := make(chan time.Time)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { b.run(ctx, ticks); close(done) }()
	ticks <- clock.t
	ticks <- clock.t // the second tick waits for the first check to end
	cancel()
	<-done
	if got := names(t, store); got != "idnode-test-20261127T200000Z.idbk idnode-test-20261127T200000Z.idbk.sha256" {
		t.Fatalf("after two ticks in one slot the store holds %s", got)
	}
}

func TestBackupScheduleValidate(t *testing.T) {
	ok := BackupSchedule{Cluster: "prod", Interval: time.Hour, Keep: 1}
	if err := ok.Validate(); err != nil {
		t.Fatalf("%+v: %v", ok, err)
	}
	for _, c := range []struct {
		bad  BackupSchedule
		want string
	}{
		{BackupSchedule{Cluster: "prod", Interval: 30 * time.Second, Keep: 1}, "under the 1m0s minimum"},
		{BackupSchedule{Cluster: "prod", Interval: time.Hour}, "retention needs"},
		{BackupSchedule{Cluster: "prod", Interval: time.Hour, Keep: -1}, "negative"},
		{BackupSchedule{Cluster: "a/b", Interval: time.Hour, Keep: 1}, "cluster name"},
		{BackupSchedule{Cluster: "a.b", Interval: time.Hour, Keep: 1}, "cluster name"},
	} {
		if err := c.bad.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v; want %q", c.bad, err, c.want)
		}
	}
}
