package memberid

import "testing"

func TestNewCarriesTagAndIncarnation(t *testing.T) {
	a := New("C", "6f1c0e2a-7b3d-4c5e-9a8b-112233445566")
	b := New("C", "0a1c0e2a-7b3d-4c5e-9a8b-112233445566")
	if a == b {
		t.Fatalf("two incarnations of C share the ID %q", a)
	}
	if want := "C-6f1c0e2a7b3d4c5e"; a != want {
		t.Fatalf("New = %q, want %q", a, want)
	}
	for _, id := range []string{a, "ZA-00112233", "B"} {
		if _, ok := Tag(id); !ok {
			t.Errorf("Tag(%q) not ok", id)
		}
	}
	if tag, _ := Tag(a); tag != "C" {
		t.Errorf("Tag(%q) = %q, want C", a, tag)
	}
	for _, id := range []string{"", "c-1234", "RAFT-12", "ABCDE-1"} {
		if tag, ok := Tag(id); ok {
			t.Errorf("Tag(%q) = %q, ok; want not ok", id, tag)
		}
	}
}
