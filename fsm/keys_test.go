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
	if err := f.WriteBackup(&backup); err != nil {
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
