package main

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/raft"

	"github.com/idnode/idnode/fsm"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// apply applies one command to f as raft would.
func apply(t *testing.T, f *fsm.FSM, typ fsm.CommandType, m *raftv1.MakeOpaque) {
	t.Helper()
	data, err := fsm.Encode(typ, m)
	if err != nil {
		t.Fatal(err)
	}
	if err, ok := f.Apply(&raft.Log{Type: raft.LogCommand, Data: data}).(error); ok {
		t.Fatal(err)
	}
}

// A key scan follows a backup written to it in pieces, as the node's stream arrives, and
// names the databases whose keys it holds.
func TestKeyScanNamesTheDatabasesWhoseKeysABackupHolds(t *testing.T) {
	f := fsm.New()
	data, err := fsm.Encode(fsm.CreateDatabaseCommand, &raftv1.CreateDatabase{Name: "shop"})
	if err != nil {
		t.Fatal(err)
	}
	f.Apply(&raft.Log{Type: raft.LogCommand, Data: data})
	scan := func() []string {
		t.Helper()
		var buf bytes.Buffer
		if err := f.WriteBackup(&buf, fsm.IssueRates{}); err != nil {
			t.Fatal(err)
		}
		s := startKeyScan()
		for b := buf.Bytes(); len(b) > 0; b = b[min(len(b), 7):] {
			if _, err := s.Write(b[:min(len(b), 7)]); err != nil {
				t.Fatal(err)
			}
		}
		names, err := s.finish()
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(names)
		return names
	}
	if got := scan(); len(got) != 0 {
		t.Fatalf("a plain backup holds the keys of %q", got)
	}
	key := bytes.Repeat([]byte{7}, 32)
	apply(t, f, fsm.MakeOpaqueCommand, &raftv1.MakeOpaque{Database: "shop", Collections: []string{"orders"}, Key: key})
	apply(t, f, fsm.MakeOpaqueCommand, &raftv1.MakeOpaque{Collections: []string{"invoices"}, Key: key})
	if got, want := scan(), []string{"default", "shop"}; !slices.Equal(got, want) {
		t.Fatalf("the backup holds the keys of %q, want %q", got, want)
	}
}

// A stream that is no backup does not hold the backup up: the scan takes it all and says it
// could not tell.
func TestKeyScanOfWhatIsNoBackup(t *testing.T) {
	s := startKeyScan()
	if _, err := io.CopyN(s, strings.NewReader(strings.Repeat("not a backup ", 100_000)), 1_300_000); err != nil {
		t.Fatal(err)
	}
	if names, err := s.finish(); err == nil || names != nil {
		t.Fatalf("scan of what is no backup: %q, %v; want an error", names, err)
	}
}

func TestSecretNote(t *testing.T) {
	for _, c := range []struct {
		names     []string
		err       error
		encrypted bool
		want      string
	}{
		{nil, nil, false, ""},
		{nil, nil, true, ""},
		{[]string{"shop"}, nil, true, "f.backup holds the opaque-ID keys of database shop: it is a secret, since whoever holds it reads every opaque ID of that database back; keep its passphrase as you keep keys"},
		{[]string{"default", "shop", "billing"}, nil, false, "f.backup holds the opaque-ID keys of databases default, shop and billing: it is a secret, since whoever holds it reads every opaque ID of those databases back; keep it as you keep keys (idctl backup --passphrase-file FILE encrypts it: docs/backups.md, \"Encrypted backups\")"},
		{nil, errors.New("bad header"), false, "idctl could not tell whether f.backup holds opaque-ID keys (bad header): take it for a secret; keep it as you keep keys (idctl backup --passphrase-file FILE encrypts it"},
	} {
		got := secretNote("f.backup", c.names, c.err, c.encrypted)
		if c.want != "" && !strings.HasPrefix(secretNote("-", c.names, c.err, c.encrypted), strings.Replace(c.want, "f.backup", "the backup on standard output", 1)) {
			t.Errorf("secretNote of standard output: %q", secretNote("-", c.names, c.err, c.encrypted))
		}
		if (c.want == "") != (got == "") || !strings.HasPrefix(got, c.want) {
			t.Errorf("secretNote(%q, %v, encrypted %v) = %q, want %q", c.names, c.err, c.encrypted, got, c.want)
		}
	}
}
