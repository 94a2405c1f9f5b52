package datadir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSaveLoadRoundTrip(t *testing.T) {
	dir := t.TempDir()
	if _, found, err := LoadNodeState(dir); found || err != nil {
		t.Fatalf("empty dir: found=%v err=%v", found, err)
	}
	st := NewNodeState("B")
	st.Registered = true
	if err := SaveNodeState(dir, st); err != nil {
		t.Fatal(err)
	}
	got, found, err := LoadNodeState(dir)
	if err != nil || !found || got != st {
		t.Fatalf("loaded %+v found=%v err=%v, want %+v", got, found, err, st)
	}
	if NewNodeState("B").Incarnation == st.Incarnation {
		t.Fatal("two new states share an incarnation")
	}
}

func TestLoadRejectsCorruptState(t *testing.T) {
	for name, content := range map[string]string{
		"not json":       "{{{",
		"no tag":         `{"incarnation":"x"}`,
		"no incarnation": `{"tag":"A"}`,
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, NodeFileName), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, _, err := LoadNodeState(dir); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestMemberIDCarriesTheIncarnation(t *testing.T) {
	a, b := NewNodeState("C"), NewNodeState("C")
	if a.MemberID() == b.MemberID() || !strings.HasPrefix(a.MemberID(), "C-") {
		t.Fatalf("two data dirs of C have member IDs %q and %q; want distinct IDs starting C-", a.MemberID(), b.MemberID())
	}
	legacy := NodeState{Tag: "C", Incarnation: a.Incarnation}
	if legacy.MemberID() != "C" {
		t.Errorf("a data dir from before member IDs has ID %q, want its tag C", legacy.MemberID())
	}
	if joining := NewNodeState(""); joining.MemberID() != "" {
		t.Errorf("a node joining without a tag has ID %q before the cluster assigns one", joining.MemberID())
	}
}
