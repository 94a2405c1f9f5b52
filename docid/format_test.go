package docid

import (
	"math"
	"testing"
)

func TestFormat(t *testing.T) {
	tests := []struct{ got, want string }{
		{ServerSideID("users/", 1, "A"), "users/0000000000000000001-A"},
		{ServerSideID("users/", 17, "B"), "users/0000000000000000017-B"},
		{ServerSideID("orders:", 9_999_999_999_999_999_999, "ZZZZ"), "orders:9999999999999999999-ZZZZ"},
		{ServerSideID("x/", math.MaxUint64, "A"), "x/18446744073709551615-A"},
		{IdentityID("users", '/', 1), "users/1"},
		{IdentityID("Users", '/', 843), "Users/843"},
		{IdentityID("invoices", '→', 2), "invoices→2"},
		{HiLoID("orders/", 17, "A"), "orders/17-A"},
		{HiLoID("orders/", 1, "ZA"), "orders/1-ZA"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

// Server-side IDs from one node must sort by etag as plain strings.
func TestServerSideIDsSortByEtag(t *testing.T) {
	prev := ServerSideID("users/", 0, "A")
	for _, etag := range []uint64{1, 9, 10, 99, 100, 123_456, 1e18, 1e19 - 1} {
		id := ServerSideID("users/", etag, "A")
		if id <= prev {
			t.Errorf("%q sorts before %q", id, prev)
		}
		prev = id
	}
}

// An ID costs one allocation, its string: a server-side answer of 1,000 IDs makes 1,000, not
// 2,000. The names are long enough (IDs over 64 bytes) that the compiler cannot keep a
// scratch buffer on the stack.
func TestFormatAllocatesTheIDOnly(t *testing.T) {
	for name, format := range map[string]func() string{
		"server-side": func() string { return ServerSideID("customer-invoices-of-the-northern-region-in-2026/", 1234, "A") },
		"identity":    func() string { return IdentityID("customer-invoices-of-the-northern-region-in-2026", '→', 1234) },
	} {
		if n := testing.AllocsPerRun(100, func() { _ = format() }); n != 1 {
			t.Errorf("%s: %v allocations an ID; want 1", name, n)
		}
	}
}

func BenchmarkServerSideID(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = ServerSideID("users/", 1234, "A")
	}
}
