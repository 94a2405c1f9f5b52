package backupcrypt

import (
	"crypto/aes"
	"crypto/cipher"
	"encoding/binary"

	"golang.org/x/crypto/argon2"
)

// keyLen is AES-256's key length.
const keyLen = 32

// deriveKey is argon2id of the passphrase under the header's salt and cost
// (docs/decisions/0041-backup-passphrase-argon2id.md).
func deriveKey(passphrase []byte, h *header) []byte {
	p := h.params
	return argon2.IDKey(passphrase, h.salt[:], p.Time, p.MemoryKiB, p.Threads, keyLen)
}

// newAEAD is AES-256-GCM under key.
func newAEAD(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// chunkNonce is the nonce of chunk index: the index in the first 8 bytes, and in the last
// byte 1 for the last chunk, 0 for the others. The key is the file's own (a fresh salt each
// file), so a nonce never repeats under one key; and a chunk moved to another place, or a
// chunk that is not the last passed off as the last, does not authenticate.
func chunkNonce(index uint64, last bool) [12]byte {
	var n [12]byte
	binary.BigEndian.PutUint64(n[:8], index)
	if last {
		n[11] = 1
	}
	return n
}
