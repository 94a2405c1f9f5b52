package fsm

import (
	"bytes"
	"errors"
	"testing"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

func TestKeys(t *testing.T) {
	f := New()
	hash := bytes.Repeat([]byte{7}, 32)
	create := func(c *raftv1.CreateKey) error {
		err, _ := mustApply(t, f, CreateKeyCommand, c).(error)
		return err
	}
	if err := create(&raftv1.CreateKey{Id: "k1", Database: "billing", Role: RoleWriter, SecretSha256: hash}); !errors.Is(err, ErrDatabaseNotFound) {
		t.Fatalf("a key for a missing database: %v", err)
	}
	mustApply(t, f, CreateDatabaseCommand, &raftv1.CreateDatabase{Name: "billing"})
	for _, bad := range []*raftv1.CreateKey{
		{Id: "k1", Database: "billing", Role: "owner", SecretSha256: hash},
		{Id: "", Database: "billing", Role: RoleWriter, SecretSha256: hash},
		{Id: "k1", Database: "billing", Role: RoleWriter, SecretSha256: hash[:5]},
	} {
		if err := create(bad); !errors.Is(err, ErrInvalidKey) {
			t.Errorf("%v: %v, want ErrInvalidKey", bad, err)
		}
	}
	if f.HasKeys() {
		t.Fatal("refused keys were kept")
	}
	if err := create(&raftv1.CreateKey{Id: "k1", Database: "Billing", Role: RoleWriter, SecretSha256: hash}); err != nil {
		t.Fatal(err)
	}
	if err := create(&raftv1.CreateKey{Id: "k1", Database: "", Role: RoleReader, SecretSha256: hash}); !errors.Is(err, ErrKeyExists) {
		t.Fatalf("a taken id: %v", err)
	}
	k, ok := f.Key("k1")
	if !ok || k.Database != "billing" || k.Role != RoleWriter || !bytes.Equal(k.SecretSHA256, hash) || !f.HasKeys() {
		t.Fatalf("key k1: %+v, %v", k, ok)
	}
	if got, _ := mustRestore(t, snapshotBytes(t, f)).Key("k1"); !bytes.Equal(got.SecretSHA256, hash) {
		t.Fatal("a snapshot lost the key")
	}
	var backup bytes.Buffer
	if err := f.WriteBackup(&backup, IssueRates{}); err != nil {
		t.Fatal(err)
	}
	if mustRestore(t, backup.Bytes()).HasKeys() {
		t.Fatal("a backup carries the API keys")
	}
	if err, _ := mustApply(t, f, DeleteKeyCommand, &raftv1.DeleteKey{Id: "k1"}).(error); err != nil || f.HasKeys() {
		t.Fatalf("delete k1: %v, keys left %v", err, f.Keys())
	}
	if err, _ := mustApply(t, f, DeleteKeyCommand, &raftv1.DeleteKey{Id: "k1"}).(error); !errors.Is(err, ErrKeyNotFound) {
		t.Fatalf("delete again: %v", err)
	}
}

// An API key outlived its database and worked on a database created later
// under the same name. Deleting a database deletes its keys; re-creating one whose keys an
// older build kept deletes them then.
func TestKeysGoWithTheirDatabase(t *testing.T) {
	f := New()
	hash := bytes.Repeat([]byte{7}, 32)
	mustApply(t, f, CreateDatabaseCommand, &raftv1.CreateDatabase{Name: "billing"})
	for _, k := range []*raftv1.CreateKey{
		{Id: "billing-key", Database: "Billing", Role: RoleAdmin, SecretSha256: hash},
		{Id: "default-key", Role: RoleWriter, SecretSha256: hash},
	} {
		if err, _ := mustApply(t, f, CreateKeyCommand, k).(error); err != nil {
			t.Fatal(err)
		}
	}
	if err, _ := mustApply(t, f, DeleteDatabaseCommand, &raftv1.DeleteDatabase{Name: "billing"}).(error); err != nil {
		t.Fatal(err)
	}
	if _, ok := f.Key("billing-key"); ok {
		t.Fatal("the key of a deleted database is still there")
	}
	if _, ok := f.Key("default-key"); !ok {
		t.Fatal("deleting a database deleted another database's key")
	}

	// A state an older build left: the database deleted, its key kept.
	f.st.keys["old-key"] = &Key{ID: "old-key", Database: "billing", Role: RoleAdmin, SecretSHA256: hash}
	if err, _ := mustApply(t, f, CreateDatabaseCommand, &raftv1.CreateDatabase{Name: "billing"}).(error); err != nil {
		t.Fatal(err)
	}
	if _, ok := f.Key("old-key"); ok {
		t.Fatal("a re-created database kept a key from before its deletion")
	}
}
