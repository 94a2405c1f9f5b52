package fsm

import (
	"slices"
	"testing"
)

// Differing names a part that differs or that only one side has, in order, and nothing for
// equal parts.
func TestDigestPartsDiffering(t *testing.T) {
	p := DigestParts{"hilo": 1, "identities": 2, "nodes": 3}
	q := DigestParts{"hilo": 1, "identities": 5, "claims": 4}
	if got, want := p.Differing(q), []string{"claims", "identities", "nodes"}; !slices.Equal(got, want) {
		t.Fatalf("Differing = %q, want %q", got, want)
	}
	if got := p.Differing(p); len(got) != 0 {
		t.Fatalf("equal parts differ in %q", got)
	}
}
