package nodestate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSaveLoadRoundTrip(t *testing.T) {
	dir := t.TempDir()
	if _, found, err := Load(dir); found || err != nil {
		t.Fatalf("empty dir: found=%v err=%v", found, err)
	}
	st := New("B")
	st.Registered = true
	if err := Save(dir, st); err != nil {
		t.Fatal(err)
	}
	got, found, err := Load(dir)
	if err != nil || !found || got != st {
		t.Fatalf("loaded %+v found=%v err=%v, want %+v", got, found, err, st)
	}
	if New("B").Incarnation == st.Incarnation {
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
		if err := os.WriteFile(filepath.Join(dir, FileName), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, _, err := Load(dir); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestMemberIDCarriesTheIncarnation(t *testing.T) {
	a, b := New("C"), New("C")
	if a.MemberID() == b.MemberID() || !strings.HasPrefix(a.MemberID(), "C-") {
		t.Fatalf("two data dirs of C have member IDs %q and %q; want distinct IDs starting C-", a.MemberID(), b.MemberID())
	}
	legacy := State{Tag: "C", Incarnation: a.Incarnation}
	if legacy.MemberID() != "C" {
		t.Errorf("a data dir from before member IDs has ID %q, want its tag C", legacy.MemberID())
	}
	if joining := New(""); joining.MemberID() != "" {
		t.Errorf("a node joining without a tag has ID %q before the cluster assigns one", joining.MemberID())
	}
}
