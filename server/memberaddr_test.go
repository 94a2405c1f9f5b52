package server

import (
	"context"
	"net/netip"
	"testing"
)

func TestEndpointsTreatLoopbackSpellingsAsOne(t *testing.T) {
	t.Parallel()
	hosts := map[string][]netip.Addr{
		"localhost": {netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr("::1")},
		"mapped":    {netip.MustParseAddr("::ffff:10.0.0.7")},
		"10.0.0.7":  {netip.MustParseAddr("10.0.0.7")},
		"127.0.0.2": {netip.MustParseAddr("127.0.0.2")},
		"::1":       {netip.MustParseAddr("::1")},
		"127.0.0.1": {netip.MustParseAddr("127.0.0.1")},
	}
	lookup := func(_ context.Context, host string) ([]netip.Addr, error) { return hosts[host], nil }
	ends := func(addr string) map[string]bool {
		t.Helper()
		e, err := endpoints(context.Background(), lookup, addr)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{"localhost:7102", "127.0.0.1:7102", true},
		{"localhost:7102", "[::1]:7102", true},
		{"mapped:1", "10.0.0.7:1", true},
		{"localhost:7102", "127.0.0.1:7103", false},
		{"127.0.0.2:7102", "localhost:7102", false},
	} {
		if got := overlap(ends(tc.a), ends(tc.b)); got != tc.same {
			t.Errorf("%s and %s: same endpoint %v, want %v", tc.a, tc.b, got, tc.same)
		}
	}
}
