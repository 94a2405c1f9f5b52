package server

import (
	"maps"
	"strings"
	"testing"

	"github.com/idnode/idnode/fsm"
)

func TestDigestPartsRoundTrip(t *testing.T) {
	p := fsm.DigestParts{"hilo": 0xfedcba9876543210, "identities": 1, "retired-tags": 0}
	v := formatDigestParts(p)
	if v != "hilo=fedcba9876543210,identities=0000000000000001,retired-tags=0000000000000000" {
		t.Fatalf("formatted %q", v)
	}
	got, err := parseDigestParts(v)
	if err != nil || !maps.Equal(got, p) {
		t.Fatalf("parsed %v, %v; want %v", got, err, p)
	}
}

// A member's header is refused whole when any part of it is not what formatDigestParts writes.
func TestDigestPartsRefusesMalformedHeaders(t *testing.T) {
	for _, v := range []string{
		"hilo",
		"hilo=1",
		"hilo=zzzzzzzzzzzzzzzz",
		"Hilo=0000000000000001",
		"hilo=0000000000000001,hilo=0000000000000002",
		"hilo=0000000000000001,",
		strings.Repeat("a", maxDigestPartName+1) + "=0000000000000001",
		strings.Repeat("a=0000000000000001,", maxDigestParts) + "b=0000000000000001",
	} {
		if p, err := parseDigestParts(v); err == nil {
			t.Errorf("%.60q parsed as %v", v, p)
		}
	}
}

// FuzzDigestParts: whatever a member sends, parsing ends, keeps at most maxDigestParts parts,
// and what it accepts formats back to the same header.
func FuzzDigestParts(f *testing.F) {
	f.Add("hilo=fedcba9876543210,identities=0000000000000001")
	f.Add("")
	f.Add("a=,=0")
	f.Fuzz(func(t *testing.T, v string) {
		p, err := parseDigestParts(v)
		if err != nil {
			return
		}
		if len(p) > maxDigestParts {
			t.Fatalf("%d parts kept", len(p))
		}
		again := formatDigestParts(p)
		if q, err := parseDigestParts(again); err != nil || !maps.Equal(p, q) {
			t.Fatalf("%q parsed to %v, which formats to %q, which parses to %v, %v", v, p, again, q, err)
		}
	})
}
