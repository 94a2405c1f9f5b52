package opaque

import (
	"bufio"
	"encoding/hex"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// sampleDigits is how NIST's samples write numerals: 0-9 then a-z.
const sampleDigits = "0123456789abcdefghijklmnopqrstuvwxyz"

// ff1Sample is one line of testdata/ff1-samples.txt.
type ff1Sample struct {
	name                  string
	key, tweak            []byte
	radix                 int
	plaintext, ciphertext []uint16
}

// readSamples reads NIST's FF1 samples from testdata, failing unless all nine are there.
func readSamples(t *testing.T) []ff1Sample {
	t.Helper()
	file, err := os.Open("testdata/ff1-samples.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	var samples []ff1Sample
	lines := bufio.NewScanner(file)
	for lines.Scan() {
		line := lines.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 6 {
			t.Fatalf("sample line %q has %d fields, want 6", line, len(f))
		}
		s := ff1Sample{name: "sample " + f[0], key: fromHex(t, f[1]), plaintext: numerals(t, f[4]), ciphertext: numerals(t, f[5])}
		if s.radix, err = strconv.Atoi(f[2]); err != nil {
			t.Fatal(err)
		}
		if f[3] != "-" {
			s.tweak = fromHex(t, f[3])
		}
		samples = append(samples, s)
	}
	if err := lines.Err(); err != nil {
		t.Fatal(err)
	}
	if len(samples) != 9 {
		t.Fatalf("read %d samples, NIST publishes 9", len(samples))
	}
	return samples
}

func fromHex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func numerals(t *testing.T, s string) []uint16 {
	t.Helper()
	x := make([]uint16, len(s))
	for i := range len(s) {
		d := strings.IndexByte(sampleDigits, s[i])
		if d < 0 {
			t.Fatalf("%q: %q is not a sample digit", s, s[i])
		}
		x[i] = uint16(d)
	}
	return x
}

// FF1 gives NIST's published ciphertext for each of its nine samples (AES-128, -192 and -256;
// radix 10 and 36; with and without a tweak), and decrypts it back to the plaintext.
func TestFF1NISTSamples(t *testing.T) {
	for _, s := range readSamples(t) {
		t.Run(s.name, func(t *testing.T) {
			f, err := NewFF1(s.key, s.radix)
			if err != nil {
				t.Fatal(err)
			}
			got, err := f.Encrypt(s.plaintext, s.tweak)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, s.ciphertext) {
				t.Errorf("Encrypt = %v, NIST's ciphertext is %v", got, s.ciphertext)
			}
			back, err := f.Decrypt(s.ciphertext, s.tweak)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(back, s.plaintext) {
				t.Errorf("Decrypt = %v, NIST's plaintext is %v", back, s.plaintext)
			}
		})
	}
}
