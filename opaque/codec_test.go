package opaque

import (
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/idnode/idnode/flake"
)

func identityCodec(t testing.TB, key []byte, collection string) *Codec {
	t.Helper()
	c, err := NewIdentityCodec(key, collection)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// An identity's form is 13 symbols, from the first value to the last an int64 counter holds.
func TestIdentityCodecCoversTheCounter(t *testing.T) {
	c := identityCodec(t, testKey, "orders")
	if c.Len() != IdentityLen {
		t.Fatalf("Len = %d, want IdentityLen = %d", c.Len(), IdentityLen)
	}
	for _, v := range []int64{1, 2, 1 << 32, math.MaxInt64 - 1, math.MaxInt64} {
		form, err := c.Encode(v)
		if err != nil {
			t.Fatalf("Encode(%d): %v", v, err)
		}
		if len(form) != IdentityLen || strings.Trim(form, flake.CrockfordAlphabet) != "" {
			t.Errorf("Encode(%d) = %q: not %d upper-case Crockford symbols", v, form, IdentityLen)
		}
		if got, err := c.Decode(form); err != nil || got != v {
			t.Errorf("Decode(%q) = %d, %v; want %d", form, got, err, v)
		}
	}
	for _, v := range []int64{0, -1, math.MinInt64} {
		if form, err := c.Encode(v); !errors.Is(err, ErrDomain) {
			t.Errorf("Encode(%d) = %q, %v; want ErrDomain: identities start at 1", v, form, err)
		}
	}
}

func TestNewCodecRefusesBadInput(t *testing.T) {
	for _, c := range []struct {
		name        string
		key, tweak  []byte
		first, last int64
		want        error
	}{
		{"negative first", testKey, nil, -1, 10, ErrDomain},
		{"last below first", testKey, nil, 10, 9, ErrDomain},
		{"short key", testKey[:15], nil, 1, 10, ErrKeySize},
		{"long tweak", testKey, make([]byte, MaxTweakLen+1), 1, 10, ErrTweakLength},
	} {
		if _, err := NewCodec(c.key, c.tweak, c.first, c.last); !errors.Is(err, c.want) {
			t.Errorf("%s: err = %v, want %v", c.name, err, c.want)
		}
	}
	if c, err := NewCodec(testKey, nil, 0, 0); err != nil || c.Len() != 4 {
		t.Errorf("a counter of one value: %v, want a codec of FF1's minimum length 4", err)
	}
}

// Decode reads a form as Crockford asks: either case, I and L as 1, O as 0.
func TestDecodeReadsCrockfordAliases(t *testing.T) {
	c := identityCodec(t, testKey, "orders")
	// Find a form with both a 0 and a 1 in it, to have something to alias.
	var form string
	var value int64
	for v := int64(1); v < 10_000 && form == ""; v++ {
		f, err := c.Encode(v)
		if err != nil {
			t.Fatal(err)
		}
		if strings.ContainsRune(f, '0') && strings.ContainsRune(f, '1') {
			form, value = f, v
		}
	}
	if form == "" {
		t.Fatal("no form among the first 10,000 values holds both 0 and 1")
	}
	for _, variant := range []string{
		strings.ToLower(form),
		strings.NewReplacer("0", "O", "1", "I").Replace(form),
		strings.NewReplacer("0", "o", "1", "l").Replace(form),
		strings.NewReplacer("1", "L").Replace(strings.ToLower(form)),
	} {
		if got, err := c.Decode(variant); err != nil || got != value {
			t.Errorf("Decode(%q) = %d, %v; %q is %d", variant, got, err, form, value)
		}
	}
}

// Text that is no form is ErrForm, before any decryption.
func TestDecodeRefusesForeignText(t *testing.T) {
	c := identityCodec(t, testKey, "orders")
	form, err := c.Encode(42)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		"", form[:12], form + "0", strings.Repeat("0", 1<<20),
		"U" + form[1:], "-" + form[1:], form[:6] + "-" + form[7:], " " + form[1:], form[:12] + "\x00",
		"é" + form[2:], "*" + form[1:], "orders/" + form[7:], "\xff" + form[1:],
	} {
		if v, err := c.Decode(s); !errors.Is(err, ErrForm) {
			t.Errorf("Decode(%.40q) = %d, %v; want ErrForm", s, v, err)
		}
	}
}

// A well-formed string whose decryption is outside the counter's range is refused as not an ID
// of this database: 0 and the values above 2^63 − 1, which no counter can issue.
func TestDecodeRefusesValuesOutsideTheCounter(t *testing.T) {
	c := identityCodec(t, testKey, "orders")
	// A value is given as FF1's halves: the first 6 symbols' value and the last 7 symbols'
	// (35 bits), since the last 13-symbol string, 2^65 − 1, does not fit a uint64.
	for _, v := range []struct {
		name string
		a, b uint64
	}{
		{"0", 0, 0},
		{"2^63", 1 << 28, 0},
		{"2^64 - 1", 1<<29 - 1, 1<<35 - 1},
		{"2^65 - 1", 1<<30 - 1, 1<<35 - 1},
	} {
		form := c.symbols(c.net.encrypt(v.a, v.b))
		if got, err := c.Decode(form); !errors.Is(err, ErrNotThisDatabase) {
			t.Errorf("the form of %s, %s: Decode = %d, %v; want ErrNotThisDatabase", v.name, form, got, err)
		}
	}
}

// A form made under another key or for another collection never decodes to the value it was
// made from, and most such forms are refused outright: three in four 13-symbol strings decrypt
// above 2^63 − 1.
func TestDecodeUnderAnotherKeyOrCollection(t *testing.T) {
	mine := identityCodec(t, testKey, "orders")
	for name, other := range map[string]*Codec{
		"another key":        identityCodec(t, []byte("fedcba9876543210"), "orders"),
		"another collection": identityCodec(t, testKey, "invoices"),
	} {
		refused := 0
		const n = 1000
		for v := int64(1); v <= n; v++ {
			form, err := other.Encode(v)
			if err != nil {
				t.Fatal(err)
			}
			got, err := mine.Decode(form)
			switch {
			case errors.Is(err, ErrNotThisDatabase):
				refused++
			case err != nil:
				t.Fatalf("%s: Decode(%s): %v", name, form, err)
			case got == v:
				t.Errorf("%s: %s decodes to %d here too", name, form, v)
			}
		}
		if refused < n/2 {
			t.Errorf("%s: %d of %d forms refused, expected about three in four", name, refused, n)
		}
	}
}

// One codec serves many goroutines at once (run with -race).
func TestCodecConcurrentUse(t *testing.T) {
	c := identityCodec(t, testKey, "orders")
	var wg sync.WaitGroup
	for g := range int64(4) {
		wg.Go(func() {
			for v := g*1000 + 1; v <= g*1000+200; v++ {
				form, err := c.Encode(v)
				if err != nil {
					t.Error(err)
					return
				}
				if got, err := c.Decode(form); err != nil || got != v {
					t.Errorf("%d → %s → %d, %v", v, form, got, err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// The codec is FF1 over the value's 13 base-32 digits, most significant first, written with
// Crockford's alphabet: derived here through FF1's numeral interface, which NIST's samples
// check, rather than through the codec's halves.
func TestCodecIsFF1OverTheValuesDigits(t *testing.T) {
	c := identityCodec(t, testKey, "orders")
	ff1, err := NewFF1(testKey, formRadix)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []int64{1, 2, 31, 32, 12345, 1 << 40, math.MaxInt64} {
		digits := strconv.FormatUint(uint64(v), formRadix)
		digits = strings.Repeat("0", IdentityLen-len(digits)) + digits
		x := make([]uint16, len(digits))
		for i := range len(digits) {
			d, _ := strconv.ParseUint(digits[i:i+1], formRadix, 8)
			x[i] = uint16(d)
		}
		y, err := ff1.Encrypt(x, []byte("orders"))
		if err != nil {
			t.Fatal(err)
		}
		var want strings.Builder
		for _, d := range y {
			want.WriteByte(flake.CrockfordAlphabet[d])
		}
		if got, err := c.Encode(v); err != nil || got != want.String() {
			t.Errorf("Encode(%d) = %q, %v; FF1 over its digits gives %q", v, got, err, want.String())
		}
	}
}

// docs/opaque-ids.md's worked example is what the codec gives under the key it shows.
func TestDocsWorkedExample(t *testing.T) {
	page, err := os.ReadFile("../docs/opaque-ids.md")
	if err != nil {
		t.Fatal(err)
	}
	c := identityCodec(t, fromHex(t, "2b7e151628aed2a6abf7158809cf4f3c"), "orders")
	for v := int64(1); v <= 3; v++ {
		form, err := c.Encode(v)
		if err != nil {
			t.Fatal(err)
		}
		if row := fmt.Sprintf("| %d | `orders/%s` |", v, form); !strings.Contains(string(page), row) {
			t.Errorf("docs/opaque-ids.md has no row %q", row)
		}
	}
}
