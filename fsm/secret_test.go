package fsm

import (
	"bytes"
	"errors"
	"testing"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// The first cluster secret wins, a snapshot carries it, and a backup does not.
func TestClusterSecret(t *testing.T) {
	f := New()
	if f.ClusterSecret() != nil {
		t.Fatal("a new FSM has a cluster secret")
	}
	if err, _ := mustApply(t, f, SetClusterSecretCommand, &raftv1.SetClusterSecret{Secret: []byte("short")}).(error); !errors.Is(err, ErrInvalidSecret) {
		t.Fatalf("a 5-byte secret: %v, want ErrInvalidSecret", err)
	}
	first, second := bytes.Repeat([]byte{1}, 32), bytes.Repeat([]byte{2}, 32)
	mustApply(t, f, SetClusterSecretCommand, &raftv1.SetClusterSecret{Secret: first})
	mustApply(t, f, SetClusterSecretCommand, &raftv1.SetClusterSecret{Secret: second})
	if !bytes.Equal(f.ClusterSecret(), first) {
		t.Fatalf("secret %x after two proposals, want the first", f.ClusterSecret())
	}
	if got := mustRestore(t, snapshotBytes(t, f)).ClusterSecret(); !bytes.Equal(got, first) {
		t.Fatalf("restored from a snapshot: secret %x, want %x", got, first)
	}
	var backup bytes.Buffer
	if err := f.WriteBackup(&backup, IssueRates{}); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(backup.Bytes(), first) || mustRestore(t, backup.Bytes()).ClusterSecret() != nil {
		t.Fatal("a backup carries the cluster secret")
	}
}
