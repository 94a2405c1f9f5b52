package server

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/idnode/idnode/fsm"
)

// A member's digest parts travel in one probe header: name=checksum pairs, the checksum in 16
// hex digits, comma-separated, names in order ("claims=00ab…,hilo=…").

// Bounds of a parts header, so that a member's answer cannot make the leader keep much: a
// state has far fewer kinds of record than maxDigestParts.
const (
	maxDigestParts    = 64
	maxDigestPartName = 32
)

var errDigestParts = errors.New("malformed digest parts")

func formatDigestParts(p fsm.DigestParts) string {
	var b strings.Builder
	for i, name := range slices.Sorted(maps.Keys(p)) {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%s=%016x", name, p[name])
	}
	return b.String()
}

// parseDigestParts reads what formatDigestParts wrote, refusing anything else.
func parseDigestParts(v string) (fsm.DigestParts, error) {
	if v == "" {
		return fsm.DigestParts{}, nil
	}
	pairs := strings.SplitN(v, ",", maxDigestParts+1)
	if len(pairs) > maxDigestParts {
		return nil, fmt.Errorf("%w: more than %d parts", errDigestParts, maxDigestParts)
	}
	out := make(fsm.DigestParts, len(pairs))
	for _, pair := range pairs {
		name, sum, ok := strings.Cut(pair, "=")
		if !ok || !partNameOK(name) || len(sum) != 16 {
			return nil, fmt.Errorf("%w: %.80q", errDigestParts, pair)
		}
		n, err := strconv.ParseUint(sum, 16, 64)
		if err != nil {
			return nil, fmt.Errorf("%w: %.80q", errDigestParts, pair)
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("%w: %q twice", errDigestParts, name)
		}
		out[name] = n
	}
	return out, nil
}

// partNameOK admits the names fsm gives parts: lower-case letters, digits and hyphens.
func partNameOK(name string) bool {
	if name == "" || len(name) > maxDigestPartName {
		return false
	}
	for _, r := range name {
		if (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '-' {
			return false
		}
	}
	return true
}
