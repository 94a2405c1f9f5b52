package node

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/idnode/idnode/internal/backupcrypt"
	"github.com/idnode/idnode/internal/backupstore"
	"github.com/idnode/idnode/node/httpapi"
)

// BackupSchedule is the cluster's scheduled backups (docs/scheduled-backups.md): every node
// runs the same schedule, and only the leader acts on it.
type BackupSchedule struct {
	// Store is where the backups go; nil turns scheduled backups off.
	Store backupstore.Store
	// Cluster names the cluster in the backups' names, so several clusters can share a store.
	Cluster string
	// Interval is the length of a slot: one backup per slot, cluster-wide.
	Interval time.Duration
	// Keep is how many backups are kept (0: no bound by count); MaxAge drops backups whose
	// slot is older (0: no bound by age). The newest backup is never dropped.
	Keep   int
	MaxAge time.Duration
	// Passphrase, when set, encrypts each backup (internal/backupcrypt), as idctl backup
	// --passphrase-file does.
	Passphrase []byte
	// Observer, when set, hears each backup's outcome (the metrics).
	Observer BackupObserver
}

// BackupObserver hears what the scheduler did.
type BackupObserver interface {
	BackupSucceeded(slot time.Time, sum backupstore.Sum)
	BackupFailed()
}

// Validate refuses a schedule the scheduler could not keep: an interval under
// MinBackupInterval, no retention bound, a cluster name that cannot be part of an object name.
func (s BackupSchedule) Validate() error {
	var errs []error
	if s.Interval < MinBackupInterval {
		errs = append(errs, fmt.Errorf("backup interval %v is under the %v minimum (each backup copies the whole state)", s.Interval, MinBackupInterval))
	}
	if s.Keep < 0 || s.MaxAge < 0 {
		errs = append(errs, errors.New("backup retention may not be negative"))
	}
	if s.Keep == 0 && s.MaxAge == 0 {
		errs = append(errs, errors.New("backup retention needs a count of at least 1 or a maximum age: without one the store fills up"))
	}
	if err := backupstore.ValidateName(s.Cluster); err != nil || strings.Contains(s.Cluster, ".") {
		errs = append(errs, fmt.Errorf("backup cluster name %q: only letters, digits, '-' and '_'", s.Cluster))
	}
	return errors.Join(errs...)
}

// slotName names the backup of the slot starting at slot.
func (s BackupSchedule) slotName(slot time.Time) string {
	return backupstore.ScheduledName(s.Cluster, slot)
}

// slotOf parses a backup's name back to its slot; ok is false for other objects, other
// clusters' backups included.
func (s BackupSchedule) slotOf(name string) (time.Time, bool) {
	cluster, slot, ok := backupstore.ParseScheduledName(name)
	return slot, ok && cluster == s.Cluster
}

// backupScheduler takes the scheduled backups. The rule that keeps a leader change from
// skipping or doubling one: a slot's backup is named by the slot, and a leader takes it only
// when the store does not already hold that name. A new leader in the middle of a slot thus
// takes the slot's backup if the old one had not, and leaves it otherwise. (Two leaders at
// once, for the moment an old one has not yet noticed, would both write the same name with a
// backup of the same cluster: the store keeps one whole object, never a mix.)
type backupScheduler struct {
	sched    BackupSchedule
	isLeader func() bool
	// write writes a backup, as idctl backup receives it.
	write func(ctx context.Context, w io.Writer) error
	now   func() time.Time
	log   *slog.Logger

	mu sync.Mutex
	// failed is the slot whose backup failed: it is retried at the next slot, not at every
	// check of this one.
	failed time.Time

	// seen is what the console shows (backupstatus.go), under its own lock: a check holds mu
	// for a whole backup, and the console must not wait for one.
	seen backupsSeen
}

// backupChecks is how many times a slot the scheduler looks whether its backup is due: a new
// leader takes a slot's missing backup within this fraction of the interval.
const backupChecks = 10

// run checks at every tick until ctx ends.
func (b *backupScheduler) run(ctx context.Context, ticks <-chan time.Time) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticks:
			b.check(ctx)
		}
	}
}

// check takes the current slot's backup if this node leads, the store lacks it, and it did
// not already fail, then prunes. It returns whether it took one.
func (b *backupScheduler) check(ctx context.Context) (bool, error) {
	if !b.isLeader() {
		return false, nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	slot := b.now().UTC().Truncate(b.sched.Interval)
	if slot.Equal(b.failed) {
		return false, nil
	}
	took, err := b.take(ctx, slot)
	if err != nil {
		b.seen.failed(b.now(), err)
		b.failed = slot
		b.log.Error("scheduled backup failed; the next slot tries again", "slot", slot, "store", b.sched.Store.String(), "err", err)
		if b.sched.Observer != nil {
			b.sched.Observer.BackupFailed()
		}
	}
	return took, err
}

// take writes slot's backup unless the store holds it, then prunes.
func (b *backupScheduler) take(ctx context.Context, slot time.Time) (bool, error) {
	objects, err := b.sched.Store.List(ctx)
	if err != nil {
		return false, err
	}
	b.seen.listed(b.now(), b.sched.backups(objects))
	name := b.sched.slotName(slot)
	if slices.ContainsFunc(objects, func(o backupstore.Object) bool { return o.Name == name }) {
		return false, nil
	}
	sum, err := b.put(ctx, name)
	if err != nil {
		return false, err
	}
	digest := backupstore.DigestLine(name, sum.SHA256)
	if _, err := b.sched.Store.Put(ctx, name+backupstore.DigestSuffix, strings.NewReader(digest)); err != nil {
		return false, fmt.Errorf("backup %s stored, its digest not: %w", name, err)
	}
	b.log.Info("scheduled backup stored", "name", name, "bytes", sum.Size, "sha256", hex.EncodeToString(sum.SHA256[:]), "store", b.sched.Store.String())
	if b.sched.Observer != nil {
		b.sched.Observer.BackupSucceeded(slot, sum)
	}
	objects, err = b.sched.Store.List(ctx)
	if err != nil {
		return true, fmt.Errorf("backup %s stored, but listing for retention failed: %w", name, err)
	}
	kept, err := b.prune(ctx, b.sched.backups(objects), slot)
	b.seen.listed(b.now(), kept)
	if err != nil {
		return true, fmt.Errorf("backup %s stored, but pruning failed: %w", name, err)
	}
	return true, nil
}

// put streams a backup, encrypted when a passphrase is set, into the store under name.
func (b *backupScheduler) put(ctx context.Context, name string) (backupstore.Sum, error) {
	pr, pw := io.Pipe()
	written := make(chan struct{})
	go func() {
		defer close(written)
		pw.CloseWithError(b.encode(ctx, pw))
	}()
	sum, err := b.sched.Store.Put(ctx, name, pr)
	pr.CloseWithError(errors.New("the store stopped reading")) // ends the writer if Put did not read to the end
	<-written
	return sum, err
}

// encode writes the backup to w, through the encryption when a passphrase is set.
func (b *backupScheduler) encode(ctx context.Context, w io.Writer) error {
	if len(b.sched.Passphrase) == 0 {
		return b.write(ctx, w)
	}
	enc, err := backupcrypt.NewWriter(w, b.sched.Passphrase, backupcrypt.DefaultParams)
	if err != nil {
		return err
	}
	if err := b.write(ctx, enc); err != nil {
		return err
	}
	return enc.Close()
}

// backup is one of this cluster's backups in the store.
type backup struct {
	backupstore.Object
	slot time.Time
}

// backups are this cluster's backups among objects (not their digests, nor others' objects),
// newest first.
func (s BackupSchedule) backups(objects []backupstore.Object) []backup {
	var out []backup
	for _, o := range objects {
		if slot, ok := s.slotOf(o.Name); ok {
			out = append(out, backup{o, slot})
		}
	}
	slices.SortFunc(out, func(x, y backup) int { return y.slot.Compare(x.slot) })
	return out
}

// prune deletes the backups retention drops, with their digests: all but the newest Keep,
// and those whose slot is more than MaxAge before newest's. newest itself is always kept: it
// is first, Keep is at least 1 when set, and its age is 0. Backups of later slots (a clock
// that ran ahead) are left alone. It returns the backups still there (newest first).
func (b *backupScheduler) prune(ctx context.Context, backups []backup, newest time.Time) ([]backup, error) {
	var errs []error
	var kept []backup
	i := 0 // the rank among the backups up to newest
	for _, bk := range backups {
		if bk.slot.After(newest) {
			kept = append(kept, bk)
			continue
		}
		tooMany := b.sched.Keep > 0 && i >= b.sched.Keep
		tooOld := b.sched.MaxAge > 0 && newest.Sub(bk.slot) > b.sched.MaxAge
		i++
		if !tooMany && !tooOld {
			kept = append(kept, bk)
			continue
		}
		err := b.sched.Store.Delete(ctx, bk.Name+backupstore.DigestSuffix)
		if err == nil {
			err = b.sched.Store.Delete(ctx, bk.Name)
		}
		if err != nil {
			errs = append(errs, err)
			kept = append(kept, bk) // still in the store
			continue
		}
		b.log.Info("scheduled backup pruned", "name", bk.Name)
	}
	return kept, errors.Join(errs...)
}

// backupStatus answers the console's GET /v1/backups: what the scheduler saw, or that this
// node schedules no backups.
func (n *Node) backupStatus() httpapi.BackupStatus {
	if n.backups == nil {
		return httpapi.BackupStatus{}
	}
	return n.backups.status()
}

// newBackupScheduler makes the scheduler when the node has a backup store, before the node
// serves HTTP (whose console asks it); scheduleBackups starts it. It writes each backup with
// the server's own WriteBackup, not through the node's gRPC port: the node is no caller that
// an admin check or the audit log is about.
func (n *Node) newBackupScheduler() error {
	if n.cfg.Backups.Store == nil {
		return nil
	}
	if err := n.cfg.Backups.Validate(); err != nil {
		return err
	}
	n.backups = &backupScheduler{sched: n.cfg.Backups, isLeader: n.raft.IsLeader, write: n.server.WriteBackup, now: time.Now, log: n.log}
	return nil
}

// scheduleBackups starts the scheduler, if there is one: it checks backupChecks times an
// interval, on every node, and acts only on the leader.
func (n *Node) scheduleBackups() {
	if n.backups == nil {
		return
	}
	ctx, cancel := context.WithCancel(n.ctx)
	ticker := time.NewTicker(n.cfg.Backups.Interval / backupChecks)
	done := make(chan struct{})
	go func() {
		defer close(done)
		n.backups.run(ctx, ticker.C)
	}()
	n.atStop(func(*error) {
		cancel()
		ticker.Stop()
		<-done
	})
	n.log.Info("scheduled backups on", "store", n.cfg.Backups.Store.String(), "interval", n.cfg.Backups.Interval,
		"keep", n.cfg.Backups.Keep, "max_age", n.cfg.Backups.MaxAge, "encrypted", len(n.cfg.Backups.Passphrase) > 0)
}
