package backupstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// A scheduled backup is named idnode-CLUSTER-SLOT.idbk, SLOT the UTC start of its slot, and
// the SHA-256 of what was stored is in the object of that name plus DigestSuffix, written after
// it in sha256sum's format (docs/scheduled-backups.md).
const (
	ScheduledExt = ".idbk"
	// slotLayout is a slot's UTC start in a name: sortable, letters and digits only.
	slotLayout      = "20060102T150405Z"
	scheduledPrefix = "idnode-"
)

// Errors of reading a target's scheduled backups.
var (
	// ErrNoBackup matches Newest's error when the store holds no complete scheduled backup.
	ErrNoBackup = errors.New("no scheduled backup with its digest beside it")
	// ErrSeveralClusters matches Newest's error when the store holds several clusters' backups.
	ErrSeveralClusters = errors.New("the store holds the scheduled backups of several clusters")
)

// ScheduledName names the backup of cluster's slot starting at slot.
func ScheduledName(cluster string, slot time.Time) string {
	return scheduledPrefix + cluster + "-" + slot.UTC().Format(slotLayout) + ScheduledExt
}

// ParseScheduledName reads a scheduled backup's name back to its cluster and slot; ok is
// false for any other object (its digest included).
func ParseScheduledName(name string) (cluster string, slot time.Time, ok bool) {
	rest, ok := strings.CutPrefix(name, scheduledPrefix)
	if !ok {
		return "", time.Time{}, false
	}
	rest, ok = strings.CutSuffix(rest, ScheduledExt)
	if !ok || len(rest) < len(slotLayout)+2 || rest[len(rest)-len(slotLayout)-1] != '-' {
		return "", time.Time{}, false
	}
	slot, err := time.Parse(slotLayout, rest[len(rest)-len(slotLayout):])
	if err != nil {
		return "", time.Time{}, false
	}
	return rest[:len(rest)-len(slotLayout)-1], slot, true
}

// Newest picks, among objects (a List), the scheduled backup of the latest slot whose digest
// is beside it: a backup without one is one whose schedule failed halfway, and cannot be
// checked. Backups of several clusters in one store make "the newest" ambiguous: the error
// names the clusters, and the caller names the backup instead.
func Newest(objects []Object) (string, error) {
	names := map[string]bool{}
	for _, o := range objects {
		names[o.Name] = true
	}
	var newest string
	var newestSlot time.Time
	var clusters []string
	for _, o := range objects {
		cluster, slot, ok := ParseScheduledName(o.Name)
		if !ok || !names[o.Name+DigestSuffix] {
			continue
		}
		if !slices.Contains(clusters, cluster) {
			clusters = append(clusters, cluster)
		}
		if newest == "" || slot.After(newestSlot) {
			newest, newestSlot = o.Name, slot
		}
	}
	switch {
	case len(clusters) > 1:
		slices.Sort(clusters)
		return "", fmt.Errorf("%w (%s): name the backup to restore", ErrSeveralClusters, strings.Join(clusters, ", "))
	case newest == "":
		return "", ErrNoBackup
	}
	return newest, nil
}

// Download copies the object name from s into w and checks it against the digest object
// beside it: an error matching ErrDamaged when they differ (a *DigestError when the object's
// bytes do not hash to the digest), ErrNotFound when either is missing (and ErrNoDigest too
// when it is the digest). It opens the object
// before its digest, so a backup that is not there is named as such, not as a missing digest.
// What w received is the caller's to discard unless Download returns nil.
func Download(ctx context.Context, s Store, name string, w io.Writer) (Sum, error) {
	r, err := s.Open(ctx, name)
	if err != nil {
		return Sum{}, err
	}
	defer r.Close()
	want, err := readDigest(ctx, s, name)
	if errors.Is(err, ErrNotFound) {
		return Sum{}, noDigest{err}
	}
	if err != nil {
		return Sum{}, err
	}
	sum := newSummer(r)
	if _, err := io.Copy(w, contextReader{ctx, sum}); err != nil {
		return Sum{}, fmt.Errorf("%s: read %s: %w", s, name, err)
	}
	got := sum.sum()
	if got.SHA256 != want {
		return Sum{}, &DigestError{Store: s.String(), Name: name, Got: got, Want: want}
	}
	return got, nil
}

// ErrNoDigest matches Download's error, besides ErrNotFound, when the backup is there and its
// digest object is not: a backup cut off before its digest was stored.
var ErrNoDigest = errors.New("backupstore: the backup has no digest beside it")

// noDigest marks the store's not-found error of a digest object as ErrNoDigest, its message
// unchanged.
type noDigest struct{ err error }

func (e noDigest) Error() string        { return e.err.Error() }
func (e noDigest) Unwrap() error        { return e.err }
func (e noDigest) Is(target error) bool { return target == ErrNoDigest }

// DigestError is Download's error for an object whose bytes do not hash to the SHA-256 its
// digest object holds: damaged or cut short in the store, or beside a digest not its own. It
// carries both sums so that a caller can say what it read in its own words.
type DigestError struct {
	Store string // the store, as its String names it
	Name  string
	Got   Sum               // what was read
	Want  [sha256.Size]byte // what the digest object says
}

func (e *DigestError) Error() string {
	return fmt.Sprintf("%s: %v: %s is %v, its digest %s says sha256 %s", e.Store, ErrDamaged, e.Name, e.Got, e.Name+DigestSuffix, hex.EncodeToString(e.Want[:]))
}

// Is makes a DigestError match ErrDamaged.
func (e *DigestError) Is(target error) bool { return target == ErrDamaged }

// readDigest reads and checks name's digest object: one line, the SHA-256 in hex, two spaces
// and name.
func readDigest(ctx context.Context, s Store, name string) ([32]byte, error) {
	var out [32]byte
	digest := name + DigestSuffix
	r, err := s.Open(ctx, digest)
	if err != nil {
		return out, err
	}
	defer r.Close()
	data, err := io.ReadAll(io.LimitReader(r, MaxDigestBytes+1))
	if err != nil {
		return out, fmt.Errorf("%s: read %s: %w", s, digest, err)
	}
	out, err = ParseDigestLine(data, name)
	if err != nil {
		return out, fmt.Errorf("%s: %w: %w", s, ErrDamaged, err)
	}
	return out, nil
}
