package backupcrypt

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// fuzzKey stands for the KDF's output in FuzzReader, whose inputs would otherwise each cost
// an argon2id run.
var fuzzKey = bytes.Repeat([]byte{0x5a}, keyLen)

func fixedKey(*header) ([]byte, error) { return fuzzKey, nil }

// fuzzFile is plain encrypted under fuzzKey with chunks of chunk bytes.
func fuzzFile(t testing.TB, plain []byte, chunk uint32) []byte {
	p := testParams
	p.ChunkSize = chunk
	h, err := newHeader(p)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	w, err := newWriter(&out, h, fuzzKey)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(plain); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// FuzzReader reads any bytes as an encrypted backup. It must not panic, must end in an error
// that no caller can take for a normal end, or else the input must be exactly what a writer
// makes of what was read: only a file a writer made under the key reads back.
func FuzzReader(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte(Magic))
	f.Add([]byte("idnode-fsm-snapshot-v1\n"))
	f.Add(fuzzFile(f, nil, 16))
	f.Add(fuzzFile(f, plaintext(5), 16))
	f.Add(fuzzFile(f, plaintext(16), 16))
	f.Add(fuzzFile(f, plaintext(40), 16))
	f.Add(fuzzFile(f, plaintext(7), 1))
	f.Fuzz(func(t *testing.T, file []byte) {
		var got []byte
		r, err := newReader(bytes.NewReader(file), fixedKey)
		if err == nil {
			got, err = io.ReadAll(r)
		}
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("error %v reads as a normal end", err)
			}
			return
		}
		h, err := readHeader(bytes.NewReader(file))
		if err != nil {
			t.Fatalf("the file read back, but its header does not: %v", err)
		}
		var again bytes.Buffer
		w, err := newWriter(&again, h, fuzzKey)
		if err == nil {
			_, err = w.Write(got)
		}
		if err == nil {
			err = w.Close()
		}
		if err != nil || !bytes.Equal(again.Bytes(), file) {
			t.Fatalf("read back %d bytes from a file of %d that a writer would not make (%v)", len(got), len(file), err)
		}
	})
}
