package client

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/hilo"
)

// NextID in every HiLo format, with the default separator and with one the client is told
// (WithSeparator, which the generators ask the server for).
func TestClientHiLoFormats(t *testing.T) {
	for _, sep := range []rune{'/', ':'} {
		for _, c := range []struct {
			name string
			opts []hilo.Option
			want string // with {s} for the separator and %d for the number
		}{
			{"default", nil, "orders{s}%d-A"},
			{"without node tag", []hilo.Option{hilo.WithoutNodeTag()}, "orders{s}%d"},
			{"server prefix", []hilo.Option{hilo.WithServerPrefix("NorthServer")}, "orders{s}NorthServer{s}%d-A"},
			{"server prefix without node tag", []hilo.Option{hilo.WithServerPrefix("NorthServer"), hilo.WithoutNodeTag()}, "orders{s}NorthServer{s}%d"},
		} {
			t.Run(fmt.Sprintf("%s separator %c", c.name, sep), func(t *testing.T) {
				_, _, addrs := fakeCluster(t, "A")
				opts := []Option{WithGeneratorOptions(c.opts...)}
				if sep != '/' {
					opts = append(opts, WithSeparator(sep))
				}
				cl := dialTest(t, addrs, opts...)
				ctx := testCtx(t)
				format := strings.ReplaceAll(c.want, "{s}", string(sep))
				for n := 1; n <= 40; n++ { // across the first range's end (32)
					if id, err := cl.NextID(ctx, "orders"); err != nil || id != fmt.Sprintf(format, n) {
						t.Fatalf("NextID #%d = %q, %v; want %q", n, id, err, fmt.Sprintf(format, n))
					}
				}
			})
		}
	}
}

// A tag ending with the separator, or a bad server prefix, is INVALID_ARGUMENT before any call.
func TestClientRefusesBadHiLoTagsBeforeAnyCall(t *testing.T) {
	_, nodes, addrs := fakeCluster(t, "A")
	ctx := testCtx(t)
	for _, c := range []struct {
		name string
		tag  string
		opts []Option
		rule string
	}{
		{"ends with the separator", "orders/", nil, "hilo tag ends with the separator '/'"},
		{"ends with the client's separator", "orders:", []Option{WithSeparator(':')}, "hilo tag ends with the separator ':'"},
		{"blank", " ", nil, "hilo tag is blank"},
		{"server prefix with the separator", "orders", []Option{WithGeneratorOptions(hilo.WithServerPrefix("North/Server"))}, "hilo server prefix contains the separator '/'"},
		{"server prefix with whitespace", "orders", []Option{WithGeneratorOptions(hilo.WithServerPrefix("North Server"))}, "hilo server prefix contains whitespace"},
	} {
		cl := dialTest(t, addrs, c.opts...)
		_, err := cl.NextID(ctx, c.tag)
		if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), c.rule) {
			t.Errorf("%s: NextID(%q) = %v; want INVALID_ARGUMENT saying %q", c.name, c.tag, err, c.rule)
		}
	}
	if n := nodes[0].callCount(); n != 0 {
		t.Errorf("refused tags made %d calls, want none", n)
	}
}

// SeedHiLo raises the Max the next range starts above, and never lowers it.
func TestClientSeedHiLo(t *testing.T) {
	_, _, addrs := fakeCluster(t, "A")
	c := dialTest(t, addrs)
	ctx := testCtx(t)
	if m, err := c.SeedHiLo(ctx, "orders", 5000); err != nil || m != 5000 {
		t.Fatalf("SeedHiLo(orders, 5000) = %d, %v", m, err)
	}
	if id, err := c.NextID(ctx, "orders"); err != nil || id != "orders/5001-A" {
		t.Fatalf("NextID after the seed = %q, %v; want orders/5001-A", id, err)
	}
	if m, err := c.SeedHiLo(ctx, "orders", 100); err != nil || m != 5032 {
		t.Fatalf("SeedHiLo(orders, 100) = %d, %v; want 5032, the Max after the first range", m, err)
	}
	if id, err := c.NextID(ctx, "orders"); err != nil || id != "orders/5002-A" {
		t.Fatalf("NextID after a lower seed = %q, %v; want orders/5002-A", id, err)
	}
}

// A generator's NextIDs and NextNumbers take from the tag's one generator, the one NextID
// uses: IDs and numbers continue each other; a bad tag is INVALID_ARGUMENT, and after Close
// the generator answers hilo.ErrClosed.
func TestClientHiLoBatches(t *testing.T) {
	_, _, addrs := fakeCluster(t, "A")
	c := dialTest(t, addrs)
	ctx := testCtx(t)
	g, err := c.Generator("orders")
	if err != nil {
		t.Fatal(err)
	}
	ids, err := g.NextIDs(ctx, 3)
	if err != nil || strings.Join(ids, ",") != "orders/1-A,orders/2-A,orders/3-A" {
		t.Fatalf("NextIDs(orders, 3) = %q, %v", ids, err)
	}
	nums, err := g.NextNumbers(ctx, 40) // across the first range's end (32)
	if err != nil || len(nums) != 40 || nums[0] != 4 || nums[39] != 43 {
		t.Fatalf("NextNumbers(orders, 40) = %v, %v; want 4…43", nums, err)
	}
	if id, err := c.NextID(ctx, "orders"); err != nil || id != "orders/44-A" {
		t.Fatalf("NextID after the batches = %q, %v; want orders/44-A", id, err)
	}
	if _, err := c.Generator("orders/"); status.Code(err) != codes.InvalidArgument {
		t.Errorf("Generator of a tag ending with the separator = %v, want INVALID_ARGUMENT", err)
	}
	if err := c.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := g.NextIDs(ctx, 1); !errors.Is(err, hilo.ErrClosed) {
		t.Errorf("NextIDs after Close = %v, want hilo.ErrClosed", err)
	}
	if _, err := g.NextNumbers(ctx, 1); !errors.Is(err, hilo.ErrClosed) {
		t.Errorf("NextNumbers after Close = %v, want hilo.ErrClosed", err)
	}
}
