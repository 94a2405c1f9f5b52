package backupstore

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
)

// Sum is what Put stored: its length and SHA-256. The caller keeps it beside the object's name
// (the backup schedule's record of its backups) and hands it to Verify when it reads the object
// back, because a store returns what it holds, and what it holds may be cut short or altered
// by a disk, a bucket's lifecycle rule or a hand.
type Sum struct {
	Size   int64
	SHA256 [sha256.Size]byte
}

func (s Sum) String() string {
	return fmt.Sprintf("%d bytes, sha256 %s", s.Size, hex.EncodeToString(s.SHA256[:]))
}

// ErrDamaged matches Verify's error when an object differs from its Sum.
var ErrDamaged = errors.New("backupstore: object differs from its recorded sum")

// summer counts and hashes what passes through it.
type summer struct {
	r    io.Reader
	size int64
	h    hash.Hash
}

func newSummer(r io.Reader) *summer { return &summer{r: r, h: sha256.New()} }

func (s *summer) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	s.size += int64(n)
	s.h.Write(p[:n])
	return n, err
}

func (s *summer) sum() Sum {
	out := Sum{Size: s.size}
	s.h.Sum(out.SHA256[:0])
	return out
}

// Verify reads r as it is, and at its end checks what it read against want: a reader that
// ends in an error matching ErrDamaged, naming both sums, when the object is longer, shorter
// or other than what Put stored. Until its end the reader hands out bytes unchecked, so a
// caller must not act on them before reading to io.EOF (a restore sends them to the cluster
// only then, or the backup is encrypted, whose own chunks authenticate as they are read).
func Verify(r io.Reader, want Sum) io.Reader {
	return &verifier{s: newSummer(r), want: want}
}

type verifier struct {
	s    *summer
	want Sum
	err  error
}

func (v *verifier) Read(p []byte) (int, error) {
	if v.err != nil {
		return 0, v.err
	}
	n, err := v.s.Read(p)
	if v.s.size > v.want.Size {
		v.err = fmt.Errorf("%w: more than the %d bytes recorded", ErrDamaged, v.want.Size)
		return n, v.err
	}
	if err == io.EOF {
		if got := v.s.sum(); got != v.want {
			v.err = fmt.Errorf("%w: read %v, recorded %v", ErrDamaged, got, v.want)
			return n, v.err
		}
	}
	if err != nil {
		v.err = err
	}
	return n, err
}
