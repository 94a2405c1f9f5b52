package hilopool

import (
	"os"
	"strings"
	"testing"
)

func TestEveryChangeIsOnDiskWhenItReturns(t *testing.T) {
	path := poolsPath(t)
	s := mustOpen(t, path)
	orders := Key{"orders", "Invoices"}
	steps := []struct {
		name string
		do   func()
	}{
		{"add", func() { mustAdd(t, s, users, 1001, 2000) }},
		{"add another segment", func() { mustAdd(t, s, users, 5001, 6000) }},
		{"add another pool", func() { mustAdd(t, s, orders, 1, 50) }},
		{"grant", func() { mustGrant(t, s, users, 100, 0) }},
		{"grant across nothing", func() { mustGrant(t, s, orders, 100, 0) }},
		{"grant above", func() { mustGrant(t, s, users, 10, 5500) }},
		{"return", func() {
			if !mustReturn(t, s, users, 5510, 5505) {
				t.Fatal("Return refused")
			}
		}},
		{"drop below", func() { mustNotGrant(t, s, orders, 1, 10_000) }},
		{"drop", func() {
			if err := s.Drop(); err != nil {
				t.Fatal(err)
			}
		}},
		{"add after drop", func() { mustAdd(t, s, users, 9001, 9100) }},
	}
	for _, step := range steps {
		step.do()
		want := encoded(t, s)
		if got := readFile(t, path); got != want {
			t.Fatalf("after %s the file holds\n%s\nwant\n%s", step.name, got, want)
		}
		if got := encoded(t, mustOpen(t, path)); got != want {
			t.Fatalf("after %s the reopened store is\n%s\nwant\n%s", step.name, got, want)
		}
	}
}

func TestReturnAfterARestart(t *testing.T) {
	path := poolsPath(t)
	s := mustOpen(t, path)
	mustAdd(t, s, users, 1, 100)
	g := mustGrant(t, s, users, 10, 0)
	s = mustOpen(t, path)
	if !mustReturn(t, s, users, g.High, g.Low+1) {
		t.Fatalf("Return of %v's tail refused after a restart", g)
	}
	wantSegments(t, s, users, segment{g.Low + 2, 100})
}

func TestOpenOfAMissingFileIsAnEmptyStore(t *testing.T) {
	s := mustOpen(t, poolsPath(t))
	if keys := s.Keys(); len(keys) != 0 {
		t.Fatalf("Keys = %v, want none", keys)
	}
	if got := s.Remaining(users); got != 0 {
		t.Fatalf("Remaining = %d, want 0", got)
	}
}

// A version 1 file (before grant ids) opens: its pools grant as before, and its last grant,
// which has no id, cannot be returned any more (a gap at most).
func TestOpenOfAVersion1File(t *testing.T) {
	path := poolsPath(t)
	pools := []filePool{{Database: "default", Tag: "users", Segments: []segment{{11, 100}}, LastGrant: &fileGrant{Low: 1, High: 10}}}
	sum, err := checksum(pools)
	if err != nil {
		t.Fatal(err)
	}
	doc := `{"version": 1, "pools": ` + mustJSON(t, pools) + `, "crc32c": "` + sum + `"}`
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	s := mustOpen(t, path)
	if ok, err := s.Return(users, "", 10, 5); ok || err == nil {
		t.Fatalf("Return of the version 1 last grant without id = %v, %v; want refused", ok, err)
	}
	if ok, err := s.Return(users, "any", 10, 5); ok || err != nil {
		t.Fatalf("Return of the version 1 last grant = %v, %v; want not returned", ok, err)
	}
	if g := mustGrant(t, s, users, 10, 0); g != (segment{11, 20}) {
		t.Fatalf("Grant = %v, want 11..20", g)
	}
	if !strings.Contains(readFile(t, path), `"version": 2`) {
		t.Fatal("the store did not write version 2")
	}
}

func TestOpenOfACorruptFileFailsNamingThePath(t *testing.T) {
	valid := func(t *testing.T) string {
		s := mustOpen(t, poolsPath(t))
		mustAdd(t, s, users, 1001, 2000)
		mustGrant(t, s, users, 10, 0)
		return encoded(t, s)
	}(t)
	// checksummed is a document whose checksum matches its (invalid) pools, so what refuses
	// it is the check of the pools themselves.
	checksummed := func(pools ...filePool) string {
		sum, err := checksum(pools)
		if err != nil {
			t.Fatal(err)
		}
		return `{"version": 1, "pools": ` + mustJSON(t, pools) + `, "crc32c": "` + sum + `"}`
	}
	seg := func(low, high int64) []segment { return []segment{{low, high}} }
	cases := []struct{ name, content, why string }{
		{"empty", "", "cannot parse"},
		{"not JSON", "pools: users 1..10\n", "cannot parse"},
		{"truncated", valid[:len(valid)/2], "cannot parse"},
		{"no version", `{"pools": [], "crc32c": "00000000"}`, "no version"},
		{"newer version", strings.Replace(valid, `"version": 2`, `"version": 3`, 1), "version 3"},
		{"edited number", strings.Replace(valid, "1011", "1001", 1), "checksum mismatch"},
		{"unknown field", strings.Replace(valid, `"pools"`, `"extra": 1, "pools"`, 1), "unknown field"},
		{"data after", valid + "{}", "cannot parse"},
		{"overlapping segments", checksummed(filePool{Database: "default", Tag: "users",
			Segments: []segment{{1, 10}, {5, 20}}}), "overlap"},
		{"touching segments", checksummed(filePool{Database: "default", Tag: "users",
			Segments: []segment{{1, 10}, {11, 20}}}), "touch"},
		{"number below 1", checksummed(filePool{Database: "default", Tag: "users", Segments: seg(0, 10)}), "low <= high"},
		{"upper-case tag", checksummed(filePool{Database: "default", Tag: "Users", Segments: seg(1, 10)}), "lower case"},
		{"empty tag", checksummed(filePool{Database: "default", Segments: seg(1, 10)}), "empty database or tag"},
		{"last grant in the pool", checksummed(filePool{Database: "default", Tag: "users", Segments: seg(1, 10),
			LastGrant: &fileGrant{Low: 10, High: 12, ID: "g"}}), "grant 10..12 overlaps"},
		{"below grant without a last grant above it", checksummed(filePool{Database: "default", Tag: "users", Segments: seg(1, 10),
			LastGrant: &fileGrant{Low: 20, High: 30, ID: "g2"}, BelowGrant: &fileGrant{Low: 12, High: 18, ID: "g1"}}), "below_grant"},
		{"repeated pool", checksummed(
			filePool{Database: "default", Tag: "users", Segments: seg(1, 10)},
			filePool{Database: "default", Tag: "users", Segments: seg(21, 30)}), "out of order or repeated"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := poolsPath(t)
			if err := os.WriteFile(path, []byte(c.content), 0o644); err != nil {
				t.Fatal(err)
			}
			s, err := Open(path)
			if err == nil {
				t.Fatalf("Open of a file with %s succeeded (%d pools)", c.name, len(s.Keys()))
			}
			if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), c.why) {
				t.Fatalf("Open error %q does not name %s and say %q", err, path, c.why)
			}
		})
	}
}

func TestOpenOfAnUnreadableFileFailsNamingThePath(t *testing.T) {
	path := poolsPath(t)
	if err := os.Mkdir(path, 0o755); err != nil { // a directory cannot be read as a file, even by root
		t.Fatal(err)
	}
	if _, err := Open(path); err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("Open of a directory = %v, want an error naming %s", err, path)
	}
}
