package backupcrypt

import (
	"crypto/cipher"
	"fmt"
	"io"
	"math"
)

// Writer encrypts what is written to it onto another writer, a chunk at a time: it holds one
// chunk in memory, never the whole backup. Close writes the last chunk; without it the file
// is unreadable (cut short), which is what a backup that failed half way should be.
type Writer struct {
	dst    io.Writer
	aead   cipher.AEAD
	aad    []byte // the header
	chunk  int
	buf    []byte // plaintext of the chunk being filled
	out    []byte // sealed chunk
	index  uint64
	closed bool
	err    error // the first error; every later call returns it
}

// NewWriter writes a header with params p and a fresh salt to dst, derives the key from
// passphrase, and returns a Writer that encrypts onto dst.
func NewWriter(dst io.Writer, passphrase []byte, p Params) (*Writer, error) {
	if len(passphrase) == 0 {
		return nil, ErrEmptyPassphrase
	}
	h, err := newHeader(p)
	if err != nil {
		return nil, err
	}
	return newWriter(dst, h, deriveKey(passphrase, h))
}

// newWriter writes header h to dst and returns a Writer that encrypts onto dst under key. The
// fuzz test calls it with a fixed key, to skip the KDF's cost.
func newWriter(dst io.Writer, h *header, key []byte) (*Writer, error) {
	aead, err := newAEAD(key)
	if err != nil {
		return nil, err
	}
	if _, err := dst.Write(h.raw); err != nil {
		return nil, err
	}
	chunk := int(h.params.ChunkSize)
	return &Writer{dst: dst, aead: aead, aad: h.raw, chunk: chunk,
		buf: make([]byte, 0, chunk), out: make([]byte, 0, chunk+tagLen)}, nil
}

// Write encrypts p. A full chunk is sealed only once more bytes arrive, since the last chunk
// is sealed as such and only Close knows which one that is.
func (w *Writer) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	if w.closed {
		return 0, ErrClosed
	}
	written := 0
	for len(p) > 0 {
		if len(w.buf) == w.chunk {
			if err := w.seal(false); err != nil {
				return written, err
			}
		}
		n := copy(w.buf[len(w.buf):w.chunk], p)
		w.buf = w.buf[:len(w.buf)+n]
		p = p[n:]
		written += n
	}
	return written, nil
}

// Close seals and writes the last chunk. It does not close the writer underneath.
func (w *Writer) Close() error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return nil
	}
	w.closed = true
	return w.seal(true)
}

// seal encrypts the buffered chunk as chunk w.index and writes it.
func (w *Writer) seal(last bool) error {
	if w.index == math.MaxUint64 {
		w.err = fmt.Errorf("encrypted backup: more than %d chunks", uint64(math.MaxUint64))
		return w.err
	}
	nonce := chunkNonce(w.index, last)
	w.out = w.aead.Seal(w.out[:0], nonce[:], w.buf, w.aad)
	if _, err := w.dst.Write(w.out); err != nil {
		w.err = err
		return err
	}
	w.index++
	w.buf = w.buf[:0]
	return nil
}
