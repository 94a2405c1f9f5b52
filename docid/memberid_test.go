package docid

import "testing"

func TestMemberIDCarriesTagAndIncarnation(t *testing.T) {
	a := MemberID("C", "6f1c0e2a-7b3d-4c5e-9a8b-112233445566")
	b := MemberID("C", "0a1c0e2a-7b3d-4c5e-9a8b-112233445566")
	if a == b {
		t.Fatalf("two incarnations of C share the ID %q", a)
	}
	if want := "C-6f1c0e2a7b3d4c5e"; a != want {
		t.Fatalf("MemberID = %q, want %q", a, want)
	}
	for _, id := range []string{a, "ZA-00112233", "B"} {
		if _, ok := MemberTag(id); !ok {
			t.Errorf("MemberTag(%q) not ok", id)
		}
	}
	if tag, _ := MemberTag(a); tag != "C" {
		t.Errorf("MemberTag(%q) = %q, want C", a, tag)
	}
	for _, id := range []string{"", "c-1234", "RAFT-12", "ABCDE-1"} {
		if tag, ok := MemberTag(id); ok {
			t.Errorf("MemberTag(%q) = %q, ok; want not ok", id, tag)
		}
	}
}
