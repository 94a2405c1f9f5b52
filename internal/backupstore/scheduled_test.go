package backupstore

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"flag"
	"strings"
	"testing"
	"time"
)

func TestScheduledNameRoundTrips(t *testing.T) {
	slot := time.Date(2026, 11, 27, 20, 0, 5, 0, time.UTC)
	for _, cluster := range []string{"idnode", "eu-prod", "a_b-c"} {
		name := ScheduledName(cluster, slot)
		got, gotSlot, ok := ParseScheduledName(name)
		if !ok || got != cluster || !gotSlot.Equal(slot) {
			t.Errorf("ParseScheduledName(%q) = %q, %v, %v; want %q, %v", name, got, gotSlot, ok, cluster, slot)
		}
	}
	for _, name := range []string{"idnode-x-20261127T200005Z.idbk.sha256", "idnode-20261127T200005Z.idbk",
		"idnode-x-2026112T200005Z.idbk", "other-x-20261127T200005Z.idbk", "idnode-x-20261327T200005Z.idbk"} {
		if _, _, ok := ParseScheduledName(name); ok {
			t.Errorf("ParseScheduledName(%q): ok; want no scheduled backup", name)
		}
	}
}

// put stores a scheduled backup of cluster's slot, with its digest unless noDigest.
func putScheduled(t *testing.T, s Store, cluster string, slot time.Time, data string, noDigest bool) string {
	t.Helper()
	name := ScheduledName(cluster, slot)
	sum, err := s.Put(context.Background(), name, strings.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if !noDigest {
		if _, err := s.Put(context.Background(), name+DigestSuffix, strings.NewReader(DigestLine(name, sum.SHA256))); err != nil {
			t.Fatal(err)
		}
	}
	return name
}

// The newest is the latest slot's backup that has its digest; several clusters' backups make
// it ambiguous, and an empty store has none.
func TestNewestIsTheLatestCompleteBackup(t *testing.T) {
	ctx := context.Background()
	s := newTestDir(t).Store
	list := func() []Object {
		objects, err := s.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return objects
	}
	if _, err := Newest(list()); !errors.Is(err, ErrNoBackup) {
		t.Fatalf("Newest of an empty store: %v; want ErrNoBackup", err)
	}
	t0 := time.Date(2026, 11, 27, 20, 0, 0, 0, time.UTC)
	putScheduled(t, s, "prod", t0, "old", false)
	want := putScheduled(t, s, "prod", t0.Add(time.Hour), "newer", false)
	putScheduled(t, s, "prod", t0.Add(2*time.Hour), "no digest", true)
	if got, err := Newest(list()); err != nil || got != want {
		t.Fatalf("Newest = %q, %v; want %q (the latest with a digest)", got, err, want)
	}
	putScheduled(t, s, "staging", t0, "another cluster", false)
	if _, err := Newest(list()); !errors.Is(err, ErrSeveralClusters) || !strings.Contains(err.Error(), "prod, staging") {
		t.Fatalf("Newest of two clusters' backups: %v; want ErrSeveralClusters naming both", err)
	}
}

// Download hands over a backup only with its digest, and names one that differs from it.
func TestDownloadChecksTheDigest(t *testing.T) {
	ctx := context.Background()
	ts := newTestDir(t)
	s := ts.Store
	t0 := time.Date(2026, 11, 27, 20, 0, 0, 0, time.UTC)
	data := strings.Repeat("a backup ", 1000)
	name := putScheduled(t, s, "prod", t0, data, false)
	var got bytes.Buffer
	if _, err := Download(ctx, s, name, &got); err != nil || got.String() != data {
		t.Fatalf("Download: %d bytes, %v; want the %d put", got.Len(), err, len(data))
	}
	ts.truncate(t, name, 10)
	_, err := Download(ctx, s, name, &bytes.Buffer{})
	if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), name) {
		t.Fatalf("Download of a truncated backup: %v; want ErrDamaged naming it", err)
	}
	// The mismatch carries both sums, for a caller that says it in its own words.
	var de *DigestError
	if !errors.As(err, &de) || de.Name != name || de.Got.Size != 10 || de.Want != sha256.Sum256([]byte(data)) {
		t.Fatalf("Download of a truncated backup: %#v; want a DigestError with the 10 bytes read and the digest's sum", err)
	}
	// A backup that is not there is named, not its digest.
	absent := ScheduledName("prod", t0.Add(-time.Hour))
	if _, err := Download(ctx, s, absent, &bytes.Buffer{}); !errors.Is(err, ErrNotFound) || errors.Is(err, ErrNoDigest) || strings.Contains(err.Error(), DigestSuffix) {
		t.Fatalf("Download of a missing backup: %v; want ErrNotFound naming the backup, not its digest", err)
	}
	bare := putScheduled(t, s, "prod", t0.Add(time.Hour), data, true)
	if _, err := Download(ctx, s, bare, &bytes.Buffer{}); !errors.Is(err, ErrNotFound) || !errors.Is(err, ErrNoDigest) || !strings.Contains(err.Error(), bare+DigestSuffix) {
		t.Fatalf("Download without a digest: %v; want ErrNotFound naming the digest", err)
	}
	if _, err := s.Put(ctx, bare+DigestSuffix, strings.NewReader("not a digest\n")); err != nil {
		t.Fatal(err)
	}
	if _, err := Download(ctx, s, bare, &bytes.Buffer{}); !errors.Is(err, ErrDamaged) {
		t.Fatalf("Download with a garbled digest: %v; want ErrDamaged", err)
	}
}

// A target parses to its folder or its bucket and prefix; anything else is refused.
func TestTargetFlagsParse(t *testing.T) {
	parse := func(target string) (Target, error) {
		var f TargetFlags
		fs := flag.NewFlagSet("test", flag.ContinueOnError)
		f.Register(fs, "", "where")
		args := []string{"-target", target}
		if strings.HasPrefix(target, "s3:") {
			args = append(args, "-s3-endpoint", "s3.example.com:443")
		}
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		return f.Parse(func(name string) bool { return set[name] })
	}
	for target, want := range map[string][3]string{
		"dir:/var/backups/idnode":  {"/var/backups/idnode", "", ""},
		"s3://bucket":              {"", "bucket", ""},
		"s3://bucket/idnode/prod/": {"", "bucket", "idnode/prod"},
	} {
		got, err := parse(target)
		if err != nil || got.Dir != want[0] || got.S3.Bucket != want[1] || got.S3.Prefix != want[2] {
			t.Errorf("target %q = %+v, %v; want dir %q, bucket %q, prefix %q", target, got, err, want[0], want[1], want[2])
		}
	}
	for _, target := range []string{"", "dir:", "s3://", "s3:///prefix", "s3://b/p?x=1", "s3://u@b/p", "ftp://x", "/var/backups"} {
		if _, err := parse(target); err == nil {
			t.Errorf("target %q: no error", target)
		}
	}
}
