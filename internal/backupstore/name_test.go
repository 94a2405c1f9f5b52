package backupstore

import (
	"strings"
	"testing"
)

func TestValidateName(t *testing.T) {
	for _, name := range []string{"a", "idnode-2026-11-27T20-00-00Z.backup", "A_b.c-9", strings.Repeat("x", MaxNameLen)} {
		if err := ValidateName(name); err != nil {
			t.Errorf("ValidateName(%q): %v", name, err)
		}
	}
	for _, name := range []string{"", ".", "..", "../x", "x/..", "/abs", "a/b", `a\b`, ".put-123", "a b", "é", "a\x00", strings.Repeat("x", MaxNameLen+1)} {
		if err := ValidateName(name); err == nil {
			t.Errorf("ValidateName(%q): nil; want a refusal", name)
		}
	}
}
