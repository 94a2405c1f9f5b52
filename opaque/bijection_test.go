package opaque

import (
	"testing"
)

// FF1 is a bijection on a whole domain: over radix 10 and 6 numerals, NIST's smallest domain of
// that radix, each of the 10^6 strings encrypts to a string of the domain that no other string
// encrypts to (a map of a finite set into itself that is one-to-one is onto), and decryption
// undoes encryption (checked on every 7th string, which halves the test's time).
func TestFF1IsABijection(t *testing.T) {
	f, err := NewFF1(testKey, 10)
	if err != nil {
		t.Fatal(err)
	}
	const domain = 1_000_000
	net, err := f.prepare(6, []byte("orders"))
	if err != nil {
		t.Fatal(err)
	}
	seen := make([]bool, domain)
	for x := range uint64(domain) {
		a, b := net.encrypt(x/net.powV, x%net.powV)
		y := a*net.powV + b
		if y >= domain {
			t.Fatalf("%06d encrypts to %d, outside the domain", x, y)
		}
		if seen[y] {
			t.Fatalf("%06d encrypts to %06d, as an earlier string did", x, y)
		}
		seen[y] = true
		if x%7 != 0 {
			continue
		}
		if a, b = net.decrypt(a, b); a*net.powV+b != x {
			t.Fatalf("%06d encrypts to %06d, which decrypts to %d", x, y, a*net.powV+b)
		}
	}
}

// No two counter values give one public form, and each form decodes to its value: every value
// of a counter from 1 to 100,000 under a four-symbol codec.
func TestCodecGivesEachValueItsOwnForm(t *testing.T) {
	const last = 100_000
	c, err := NewCodec(testKey, []byte("orders"), 1, last)
	if err != nil {
		t.Fatal(err)
	}
	if c.Len() != 4 {
		t.Fatalf("Len = %d, want 4 (FF1's minimum for radix 32; 100,000 needs 17 bits)", c.Len())
	}
	owner := make(map[string]int64, last)
	for v := int64(1); v <= last; v++ {
		form, err := c.Encode(v)
		if err != nil {
			t.Fatal(err)
		}
		if w, taken := owner[form]; taken {
			t.Fatalf("%d and %d both encode to %s", w, v, form)
		}
		owner[form] = v
		if got, err := c.Decode(form); err != nil || got != v {
			t.Fatalf("%d encodes to %s, which decodes to %d, %v", v, form, got, err)
		}
	}
}
