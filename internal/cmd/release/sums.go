package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/idnode/idnode/internal/filesum"
)

// sumsFile is the checksum file's name, left out of its own list.
const sumsFile = "SHA256SUMS"

// writeSums writes the SHA-256 of every regular file in dir in the format `sha256sum -c`
// and `shasum -a 256 -c` check, sorted by name.
func writeSums(w io.Writer, dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		if e.Type().IsRegular() && e.Name() != sumsFile {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	b := bufio.NewWriter(w)
	for _, name := range names {
		sum, err := filesum.SHA256(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		fmt.Fprintf(b, "%s  %s\n", sum, name)
	}
	return b.Flush()
}

// sha256Hex is the hex SHA-256 of b.
func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
