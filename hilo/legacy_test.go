package hilo

import (
	"fmt"
	"strings"
	"testing"
)

// Every format, with the cluster's separator and another one, across a range boundary (the
// first range is 1…32) and through both NextID and AppendNextID.
func TestGeneratorLegacyFormats(t *testing.T) {
	for _, c := range []struct {
		name string
		opts []Option
		want string // a format with the number as %d
	}{
		{"default", nil, "orders/%d-A"},
		{"without node tag", []Option{WithoutNodeTag()}, "orders/%d"},
		{"server prefix", []Option{WithServerPrefix("NorthServer")}, "orders/NorthServer/%d-A"},
		{"server prefix without node tag", []Option{WithServerPrefix("NorthServer"), WithoutNodeTag()}, "orders/NorthServer/%d"},
		{"separator", []Option{WithSeparator(":")}, "orders:%d-A"},
		{"separator without node tag", []Option{WithSeparator(":"), WithoutNodeTag()}, "orders:%d"},
		{"separator and server prefix", []Option{WithSeparator(":"), WithServerPrefix("North/Server")}, "orders:North/Server:%d-A"},
		{"separator and server prefix without node tag", []Option{WithSeparator(":"), WithServerPrefix("North/Server"), WithoutNodeTag()}, "orders:North/Server:%d"},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := newGen(t, newFakeSource(), "orders", c.opts...)
			ctx := testCtx(t)
			for n := 1; n <= 40; n++ {
				want := fmt.Sprintf(c.want, n)
				if n%2 == 0 {
					if id := mustNext(t, ctx, g); id != want {
						t.Fatalf("NextID #%d = %q, want %q", n, id, want)
					}
					continue
				}
				b, err := g.AppendNextID(ctx, []byte("x"))
				if err != nil || string(b) != "x"+want {
					t.Fatalf("AppendNextID #%d = %q, %v; want %q", n, b, err, "x"+want)
				}
			}
		})
	}
}

// A server prefix that would not read as one part of the ID is refused before any call.
func TestGeneratorRefusesABadServerPrefix(t *testing.T) {
	src := newFakeSource()
	for _, c := range []struct {
		prefix, sep, rule string
	}{
		{"", "", "hilo server prefix is empty"},
		{"NorthServer/", "", "hilo server prefix contains the separator '/'"},
		{"North-Server", "-", "hilo server prefix contains the separator '-'"},
		{"North Server", "", "hilo server prefix contains whitespace"},
		{"North|", "", "hilo server prefix contains a pipe"},
	} {
		_, err := NewGenerator(src, "orders", WithSeparator(c.sep), WithServerPrefix(c.prefix))
		if err == nil || !strings.Contains(err.Error(), c.rule) {
			t.Errorf("WithServerPrefix(%q), separator %q: %v; want an error saying %q", c.prefix, c.sep, err, c.rule)
		}
	}
	if n := src.callCount(); n != 0 {
		t.Errorf("bad server prefixes made %d NextHiLo calls, want none", n)
	}
}
