package backupcrypt

import (
	"bytes"
	"io"
	"testing"
)

// BenchmarkDeriveKey is what idctl spends on the KDF once per backup file it writes or reads,
// with DefaultParams.
func BenchmarkDeriveKey(b *testing.B) {
	h, err := newHeader(DefaultParams)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		deriveKey(passphrase, h)
	}
}

const benchSize = 16 << 20

// BenchmarkWriter encrypts a 16 MiB backup in default chunks, the KDF left out.
func BenchmarkWriter(b *testing.B) {
	h, err := newHeader(DefaultParams)
	if err != nil {
		b.Fatal(err)
	}
	plain := make([]byte, benchSize)
	if _, err := io.ReadFull(&pattern{}, plain); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(benchSize)
	for b.Loop() {
		w, err := newWriter(io.Discard, h, fuzzKey)
		if err == nil {
			_, err = w.Write(plain)
		}
		if err == nil {
			err = w.Close()
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReader decrypts a 16 MiB backup in default chunks, the KDF left out.
func BenchmarkReader(b *testing.B) {
	h, err := newHeader(DefaultParams)
	if err != nil {
		b.Fatal(err)
	}
	var file bytes.Buffer
	w, err := newWriter(&file, h, fuzzKey)
	if err == nil {
		_, err = io.CopyN(w, &pattern{}, benchSize)
	}
	if err == nil {
		err = w.Close()
	}
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(benchSize)
	for b.Loop() {
		r, err := newReader(bytes.NewReader(file.Bytes()), fixedKey)
		if err == nil {
			_, err = io.Copy(io.Discard, r)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}
