package backupstore

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

func TestVerify(t *testing.T) {
	data := []byte("a backup's bytes")
	s := newSummer(bytes.NewReader(data))
	if _, err := io.Copy(io.Discard, s); err != nil {
		t.Fatal(err)
	}
	sum := s.sum()
	if got, err := io.ReadAll(Verify(bytes.NewReader(data), sum)); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("the object as put: %q, %v", got, err)
	}
	altered := bytes.ToUpper(data)
	for name, r := range map[string][]byte{
		"shorter": data[:len(data)-1],
		"longer":  append(append([]byte{}, data...), '!'),
		"altered": altered,
		"empty":   nil,
	} {
		_, err := io.ReadAll(Verify(bytes.NewReader(r), sum))
		if !errors.Is(err, ErrDamaged) {
			t.Errorf("%s: %v; want ErrDamaged", name, err)
		}
	}
}
