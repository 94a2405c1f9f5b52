package backupcrypt

import (
	"bufio"
	"crypto/cipher"
	"errors"
	"fmt"
	"io"
	"math"
)

// Reader decrypts an encrypted backup as a stream, one chunk in memory at a time. It hands out
// only bytes whose chunk authenticated, and reaches io.EOF only after the chunk sealed as the
// last: a file cut off at any point, at a chunk boundary too, ends in an error, never in a
// shorter backup. Its errors are sticky and never io.EOF or io.ErrUnexpectedEOF, so a caller
// that treats those as a normal end (io.ReadFull's) cannot take a damaged file for a whole one.
type Reader struct {
	src    *bufio.Reader
	aead   cipher.AEAD
	aad    []byte // the header
	chunk  int
	buf    []byte // ciphertext of one chunk
	out    []byte // plaintext of one chunk: apart from buf, since a failed Open clears its output
	plain  []byte // the current chunk's plaintext not yet read
	index  uint64 // of the next chunk
	offset int64  // in the file, of the next chunk
	last   bool   // the last chunk has been read
	err    error
}

// NewReader reads the header of an encrypted backup from src, derives the key from
// passphrase, and reads the first chunk, so that a wrong passphrase is an error here, before
// the caller does anything with the backup.
func NewReader(src io.Reader, passphrase []byte) (*Reader, error) {
	return newReader(src, func(h *header) ([]byte, error) {
		if len(passphrase) == 0 {
			return nil, ErrEmptyPassphrase
		}
		return deriveKey(passphrase, h), nil
	})
}

// newReader is NewReader with the key from key, the seam that lets the fuzz test skip the
// KDF's cost.
func newReader(src io.Reader, key func(*header) ([]byte, error)) (*Reader, error) {
	br := bufio.NewReaderSize(src, 64<<10)
	h, err := readHeader(br)
	if err != nil {
		return nil, err
	}
	k, err := key(h)
	if err != nil {
		return nil, err
	}
	aead, err := newAEAD(k)
	if err != nil {
		return nil, err
	}
	chunk := int(h.params.ChunkSize)
	r := &Reader{src: br, aead: aead, aad: h.raw, chunk: chunk,
		buf: make([]byte, chunk+tagLen), out: make([]byte, 0, chunk), offset: int64(len(h.raw))}
	if err := r.next(); err != nil {
		return nil, err
	}
	return r, nil
}

// Read reads decrypted bytes of authenticated chunks.
func (r *Reader) Read(p []byte) (int, error) {
	for len(r.plain) == 0 {
		if r.err != nil {
			return 0, r.err
		}
		if r.last {
			return 0, io.EOF
		}
		if err := r.next(); err != nil {
			return 0, err
		}
	}
	n := copy(p, r.plain)
	r.plain = r.plain[n:]
	return n, nil
}

// next reads, authenticates and decrypts the next chunk. A chunk is the last when the file
// ends after it, and it must then have been sealed as the last.
func (r *Reader) next() error {
	if r.err != nil {
		return r.err
	}
	if r.index == math.MaxUint64 {
		return r.fail(fmt.Errorf("%w: more than %d chunks", ErrHeader, uint64(math.MaxUint64)))
	}
	n, err := io.ReadFull(r.src, r.buf)
	last := false
	switch {
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		if n < tagLen {
			return r.fail(fmt.Errorf("%w: it ends %d bytes into chunk %d (byte %d), before the chunk's end",
				ErrTruncated, n, r.index, r.offset+int64(n)))
		}
		last = true
	case err != nil:
		return r.fail(err)
	default:
		if _, err := r.src.Peek(1); errors.Is(err, io.EOF) {
			last = true
		} else if err != nil {
			return r.fail(err)
		}
	}
	nonce := chunkNonce(r.index, last)
	plain, err := r.aead.Open(r.out[:0], nonce[:], r.buf[:n], r.aad)
	if err != nil {
		if last {
			// A chunk that authenticates as one that is not the last: the chunks after it
			// are missing.
			notLast := chunkNonce(r.index, false)
			if _, err := r.aead.Open(r.out[:0], notLast[:], r.buf[:n], r.aad); err == nil {
				return r.fail(fmt.Errorf("%w: it ends after chunk %d (byte %d), which is not the last",
					ErrTruncated, r.index, r.offset+int64(n)))
			}
		}
		if r.index > 0 {
			// Chunk 0 authenticated under this passphrase: the passphrase is right.
			return r.fail(fmt.Errorf("%w: chunk %d (bytes %d to %d) does not authenticate, though the chunks before it did: the file was altered or cut short",
				ErrAuthentication, r.index, r.offset, r.offset+int64(n)-1))
		}
		return r.fail(fmt.Errorf("%w: chunk %d (bytes %d to %d) does not authenticate",
			ErrAuthentication, r.index, r.offset, r.offset+int64(n)-1))
	}
	if last && len(plain) == 0 && r.index > 0 {
		// A writer seals an empty last chunk only for an empty backup.
		return r.fail(fmt.Errorf("%w: chunk %d (byte %d) is an empty last chunk after others", ErrAuthentication, r.index, r.offset))
	}
	r.plain, r.last = plain, last
	r.index++
	r.offset += int64(n)
	return nil
}

// fail makes err the reader's sticky error, never one that reads as a normal end.
func (r *Reader) fail(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		err = fmt.Errorf("reading the encrypted backup: %v", err) // %v: no longer io.EOF
	}
	r.err = err
	return err
}
