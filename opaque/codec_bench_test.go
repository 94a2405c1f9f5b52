package opaque

import "testing"

// The cost of one identity's public form, both ways: ten AES blocks each (13 symbols).
func BenchmarkIdentityEncode(b *testing.B) {
	c, err := NewIdentityCodec(testKey, "orders")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	v := int64(1)
	for b.Loop() {
		if _, err := c.Encode(v); err != nil {
			b.Fatal(err)
		}
		v++
	}
}

func BenchmarkIdentityDecode(b *testing.B) {
	c, err := NewIdentityCodec(testKey, "orders")
	if err != nil {
		b.Fatal(err)
	}
	form, err := c.Encode(1_234_567)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Decode(form); err != nil {
			b.Fatal(err)
		}
	}
}
