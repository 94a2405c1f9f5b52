// Package backupcrypt encrypts and decrypts idctl's backup files with a passphrase, as a
// stream: a versioned header (magic, version, KDF and its parameters, salt, chunk size), then
// the backup in AES-256-GCM chunks whose nonces carry the chunk's index and whether it is the
// last, so that chunks cannot be altered, reordered, dropped or cut off without the reader
// noticing. The key is argon2id of the passphrase and the header's random salt; the header is
// the additional data of every chunk. DESIGN.md beside this file gives the layout and why.
package backupcrypt

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Magic starts every encrypted backup file. A plain backup starts with the FSM's snapshot
// magic instead ("idnode-fsm-snapshot-v1\n"), so the two can never be taken for each other.
const Magic = "idnode-encrypted-backup\n"

// The sentinel errors of the package. A reader's errors match one of them and say which chunk
// and bytes of the file they concern.
var (
	// ErrNotEncrypted: the file does not start with Magic.
	ErrNotEncrypted = errors.New("not an encrypted backup file")
	// ErrVersion: the header names a format version or KDF this build does not know.
	ErrVersion = errors.New("encrypted with a format this idctl does not know (a newer idctl?)")
	// ErrHeader: the header's parameters are outside the bounds a reader accepts.
	ErrHeader = errors.New("damaged header")
	// ErrAuthentication: a chunk did not authenticate. AES-GCM cannot tell a wrong key from
	// altered bytes, so the message names both.
	ErrAuthentication = errors.New("wrong passphrase or the file was altered")
	// ErrTruncated: the file ends before its last chunk.
	ErrTruncated = errors.New("the file was cut short")
	// ErrEmptyPassphrase: a passphrase of no bytes protects nothing.
	ErrEmptyPassphrase = errors.New("the passphrase is empty")
	// ErrClosed: a write after Close.
	ErrClosed = errors.New("write to a closed encrypted backup")
)

// Format version 1 and its one KDF.
const (
	version1  = 1
	kdfArgon2 = 1 // argon2id, RFC 9106
)

// saltLen is the salt's length: 128 bits, as RFC 9106 recommends.
const saltLen = 16

// tagLen is AES-GCM's tag length.
const tagLen = 16

// headerLen is the length of a version 1 header: magic, version, KDF, time, memory, threads,
// salt, chunk size.
const headerLen = len(Magic) + 1 + 1 + 4 + 4 + 1 + saltLen + 4

// Bounds a reader puts on a header, since the file may come from anyone: a KDF that takes at
// most a GiB and a few seconds, chunks of at most a MiB.
const (
	maxTime      = 16
	maxMemoryKiB = 1 << 20
	maxThreads   = 64
	maxChunk     = 1 << 20
)

// Params are the KDF's cost and the chunk size a writer uses. A reader takes them from the
// file's header.
type Params struct {
	Time      uint32 // argon2id passes
	MemoryKiB uint32 // argon2id memory, KiB
	Threads   uint8  // argon2id lanes
	ChunkSize uint32 // plaintext bytes per chunk (the last may hold fewer)
}

// DefaultParams are what idctl writes: RFC 9106's second recommended argon2id setting
// (3 passes over 64 MiB, 4 lanes), a fraction of a second on a small machine, and 64 KiB
// chunks.
var DefaultParams = Params{Time: 3, MemoryKiB: 64 << 10, Threads: 4, ChunkSize: 64 << 10}

// check reports whether p is within the bounds a reader accepts.
func (p Params) check() error {
	switch {
	case p.Time < 1 || p.Time > maxTime:
		return fmt.Errorf("%w: argon2id time %d is not within 1..%d", ErrHeader, p.Time, maxTime)
	case p.Threads < 1 || p.Threads > maxThreads:
		return fmt.Errorf("%w: argon2id threads %d is not within 1..%d", ErrHeader, p.Threads, maxThreads)
	case p.MemoryKiB < 8*uint32(p.Threads) || p.MemoryKiB > maxMemoryKiB:
		return fmt.Errorf("%w: argon2id memory %d KiB is not within %d..%d", ErrHeader, p.MemoryKiB, 8*uint32(p.Threads), maxMemoryKiB)
	case p.ChunkSize < 1 || p.ChunkSize > maxChunk:
		return fmt.Errorf("%w: chunk size %d is not within 1..%d", ErrHeader, p.ChunkSize, maxChunk)
	}
	return nil
}

// header is a version 1 header: its parameters, its salt, and its bytes as written (the
// additional data of every chunk).
type header struct {
	params Params
	salt   [saltLen]byte
	raw    []byte
}

// newHeader makes a header with p and a fresh random salt.
func newHeader(p Params) (*header, error) {
	if err := p.check(); err != nil {
		return nil, err
	}
	h := &header{params: p}
	if _, err := rand.Read(h.salt[:]); err != nil {
		return nil, err
	}
	b := make([]byte, 0, headerLen)
	b = append(b, Magic...)
	b = append(b, version1, kdfArgon2)
	b = binary.BigEndian.AppendUint32(b, p.Time)
	b = binary.BigEndian.AppendUint32(b, p.MemoryKiB)
	b = append(b, p.Threads)
	b = append(b, h.salt[:]...)
	b = binary.BigEndian.AppendUint32(b, p.ChunkSize)
	h.raw = b
	return h, nil
}

// IsEncrypted reports whether a file that starts with prefix is an encrypted backup. Give it
// at least len(Magic) bytes, or all the file has.
func IsEncrypted(prefix []byte) bool {
	return bytes.HasPrefix(prefix, []byte(Magic))
}

// readHeader reads and checks a header from r.
func readHeader(r io.Reader) (*header, error) {
	b := make([]byte, headerLen)
	n, err := io.ReadFull(r, b)
	if n < len(Magic) || !IsEncrypted(b[:n]) {
		if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, err
		}
		return nil, ErrNotEncrypted
	}
	if v := len(Magic); n > v && b[v] != version1 {
		return nil, fmt.Errorf("%w: format version %d", ErrVersion, b[v])
	}
	if k := len(Magic) + 1; n > k && b[k] != kdfArgon2 {
		return nil, fmt.Errorf("%w: KDF %d", ErrVersion, b[k])
	}
	switch {
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return nil, fmt.Errorf("%w: it ends inside the header, after %d of its %d bytes", ErrTruncated, n, headerLen)
	case err != nil:
		return nil, err
	}
	p := b[len(Magic)+2:]
	h := &header{raw: b}
	h.params.Time = binary.BigEndian.Uint32(p)
	h.params.MemoryKiB = binary.BigEndian.Uint32(p[4:])
	h.params.Threads = p[8]
	copy(h.salt[:], p[9:9+saltLen])
	h.params.ChunkSize = binary.BigEndian.Uint32(p[9+saltLen:])
	if err := h.params.check(); err != nil {
		return nil, err
	}
	return h, nil
}
