package fsm

import (
	"bytes"
	"slices"
	"testing"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// keyDatabasesOf is what BackupKeyDatabases names in the bytes write makes, checked against
// the databases ReadBackup finds keys for.
func keyDatabasesOf(t testing.TB, write func(*bytes.Buffer) error) []string {
	t.Helper()
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		t.Fatal(err)
	}
	names, err := BackupKeyDatabases(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	b, err := ReadBackup(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if want := opaqueDatabasesOf(b); !slices.Equal(sorted(names), want) {
		t.Fatalf("BackupKeyDatabases names %q, ReadBackup finds keys for %q", names, want)
	}
	return names
}

// opaqueDatabasesOf names the databases whose keys a parsed backup holds, sorted.
func opaqueDatabasesOf(b *Backup) []string {
	var names []string
	for _, o := range b.Opaque {
		names = append(names, DatabaseName(o.GetDatabase()))
	}
	return sorted(names)
}

func sorted(names []string) []string {
	names = slices.Clone(names)
	slices.Sort(names)
	return slices.Compact(names)
}

// BackupKeyDatabases names the databases whose keys a backup holds: every opaque one in a
// backup of the cluster (a deleted one too: its key stays), the one in a backup of that
// database, none in a plain one.
func TestBackupKeyDatabases(t *testing.T) {
	f := New()
	mustIdentity(t, f, "orders", 3, "")
	for _, db := range []string{"shop", "billing", "plain"} {
		mustApply(t, f, CreateDatabaseCommand, &raftv1.CreateDatabase{Name: db})
	}
	whole := func(b *bytes.Buffer) error { return f.WriteBackup(b, IssueRates{}) }
	if got := keyDatabasesOf(t, whole); len(got) != 0 {
		t.Fatalf("a backup without opaque collections holds the keys of %q", got)
	}
	mustMakeOpaque(t, f, &raftv1.MakeOpaque{Database: "Shop", Collections: []string{"orders"}, Key: opaqueKeyA})
	mustMakeOpaque(t, f, &raftv1.MakeOpaque{Collections: []string{"invoices"}, Key: opaqueKeyB})
	mustMakeOpaque(t, f, &raftv1.MakeOpaque{Database: "billing", Collections: []string{"invoices"}, Key: opaqueKeyB})
	if got, want := sorted(keyDatabasesOf(t, whole)), []string{"billing", "default", "shop"}; !slices.Equal(got, want) {
		t.Fatalf("the cluster's backup holds the keys of %q, want %q", got, want)
	}
	for db, want := range map[string][]string{"shop": {"shop"}, "default": {"default"}, "plain": nil} {
		if got := keyDatabasesOf(t, func(b *bytes.Buffer) error { return f.WriteDatabaseBackup(b, db, IssueRates{}) }); !slices.Equal(got, want) {
			t.Errorf("the backup of database %s holds the keys of %q, want %q", db, got, want)
		}
	}
	mustApply(t, f, DeleteDatabaseCommand, &raftv1.DeleteDatabase{Name: "billing"})
	if got := keyDatabasesOf(t, whole); !slices.Contains(got, "billing") {
		t.Errorf("after billing was deleted the cluster's backup holds the keys of %q, want billing's still", got)
	}

	if _, err := BackupKeyDatabases(bytes.NewReader([]byte("not a backup at all"))); err == nil {
		t.Error("a file that is no backup holds no keys, without an error")
	}
	var buf bytes.Buffer
	if err := f.WriteBackup(&buf, IssueRates{}); err != nil {
		t.Fatal(err)
	}
	if _, err := BackupKeyDatabases(bytes.NewReader(buf.Bytes()[:buf.Len()-1])); err == nil {
		t.Error("a backup cut inside its last record: no error")
	}
}

// FuzzBackupKeyDatabases reads any bytes as a backup: no panic, and wherever ReadBackup takes
// the bytes, the two name the same databases.
func FuzzBackupKeyDatabases(f *testing.F) {
	st := New()
	mustApply(f, st, CreateDatabaseCommand, &raftv1.CreateDatabase{Name: "shop"})
	for _, m := range []*raftv1.MakeOpaque{
		{Database: "shop", Collections: []string{"orders"}, Key: opaqueKeyA},
		{Collections: []string{"invoices"}, Numeric: true, Key: opaqueKeyB},
	} {
		var buf bytes.Buffer
		if err := st.WriteBackup(&buf, IssueRates{}); err != nil {
			f.Fatal(err)
		}
		f.Add(buf.Bytes())
		mustApply(f, st, MakeOpaqueCommand, m)
	}
	var buf bytes.Buffer
	if err := st.WriteBackup(&buf, IssueRates{}); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add([]byte(snapshotMagic))
	f.Fuzz(func(t *testing.T, data []byte) {
		names, err := BackupKeyDatabases(bytes.NewReader(data))
		if err != nil {
			return
		}
		if b, err := ReadBackup(bytes.NewReader(data)); err == nil {
			if want := opaqueDatabasesOf(b); !slices.Equal(sorted(names), want) {
				t.Fatalf("BackupKeyDatabases names %q, ReadBackup finds keys for %q", names, want)
			}
		}
	})
}
