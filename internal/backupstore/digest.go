package backupstore

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// DigestSuffix ends the name of a backup's digest object: NAME.sha256 beside NAME, which
// `sha256sum -c` checks a downloaded backup against.
const DigestSuffix = ".sha256"

// MaxDigestBytes bounds what a reader takes of a digest object: one line.
const MaxDigestBytes = 1 << 10

// DigestLine is the digest object of the backup name whose bytes hash to sum, in sha256sum's
// format.
func DigestLine(name string, sum [sha256.Size]byte) string {
	return hex.EncodeToString(sum[:]) + "  " + name + "\n"
}

// ParseDigestLine reads the digest object of the backup name, refusing one that is not a line
// of sha256sum's format naming name.
func ParseDigestLine(data []byte, name string) ([sha256.Size]byte, error) {
	var sum [sha256.Size]byte
	line, ok := strings.CutSuffix(string(data), "\n")
	hexSum, named, found := strings.Cut(line, "  ")
	if !ok || !found || strings.Contains(line, "\n") {
		return sum, fmt.Errorf("digest %s%s is not one line of sha256sum's format (HEX  NAME)", name, DigestSuffix)
	}
	if named != name {
		return sum, fmt.Errorf("digest %s%s names %q, not %q", name, DigestSuffix, named, name)
	}
	b, err := hex.DecodeString(hexSum)
	if err != nil || len(b) != sha256.Size {
		return sum, fmt.Errorf("digest %s%s: %q is no SHA-256 in hex", name, DigestSuffix, hexSum)
	}
	copy(sum[:], b)
	return sum, nil
}
