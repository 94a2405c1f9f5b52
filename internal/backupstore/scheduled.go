package backupstore

import (
	"context"
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
// beside it: an error matching ErrDamaged when they differ, ErrNotFound when either is
// missing. What w received is the caller's to discard unless Download returns nil.
func Download(ctx context.Context, s Store, name string, w io.Writer) (Sum, error) {
	want, err := readDigest(ctx, s, name)
	if err != nil {
		return Sum{}, err
	}
	r, err := s.Open(ctx, name)
	if err != nil {
		return Sum{}, err
	}
	defer r.Close()
	sum := newSummer(r)
	if _, err := io.Copy(w, contextReader{ctx, sum}); err != nil {
		return Sum{}, fmt.Errorf("%s: read %s: %w", s, name, err)
	}
	got := sum.sum()
	if got.SHA256 != want {
		return Sum{}, fmt.Errorf("%s: %w: %s is %v, its digest %s says sha256 %s", s, ErrDamaged, name, got, name+DigestSuffix, hex.EncodeToString(want[:]))
	}
	return got, nil
}

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
