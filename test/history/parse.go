package history

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseIdentityID splits an identity result such as "orders/17" (sep '/') into its prefix and
// number. The prefix may itself contain sep ("eu/orders/17" → "eu/orders", 17).
func ParseIdentityID(id string, sep rune) (prefix string, n int64, err error) {
	i := strings.LastIndex(id, string(sep))
	if i < 0 {
		return "", 0, fmt.Errorf("identity %q has no separator %q", id, sep)
	}
	prefix, num := id[:i], id[i+len(string(sep)):]
	if prefix == "" || !allDigits(num) || num[0] == '0' {
		return "", 0, fmt.Errorf("identity %q is not <prefix>%c<positive number>", id, sep)
	}
	n, err = strconv.ParseInt(num, 10, 64)
	if err != nil {
		return "", 0, fmt.Errorf("identity %q: %w", id, err)
	}
	return prefix, n, nil
}

// ParseServerSideID splits a server-side ID such as "users/0000000000000000017-B" into its
// prefix, node tag and etag.
func ParseServerSideID(id string, sep rune) (prefix, tag string, etag uint64, err error) {
	i := strings.LastIndex(id, string(sep))
	if i < 0 {
		return "", "", 0, fmt.Errorf("server-side ID %q has no separator %q", id, sep)
	}
	prefix, rest := id[:i], id[i+len(string(sep)):]
	num, tag, ok := strings.Cut(rest, "-")
	if prefix == "" || !ok || len(num) != 19 || !allDigits(num) || !validTag(tag) {
		return "", "", 0, fmt.Errorf("server-side ID %q is not <prefix>%c<19 digits>-<node tag>", id, sep)
	}
	etag, err = strconv.ParseUint(num, 10, 64)
	if err != nil || etag == 0 {
		return "", "", 0, fmt.Errorf("server-side ID %q: etag %q is not a positive 64-bit number", id, num)
	}
	return prefix, tag, etag, nil
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// validTag reports whether s is a node tag: 1–4 upper-case letters.
func validTag(s string) bool {
	if len(s) < 1 || len(s) > 4 {
		return false
	}
	for _, c := range s {
		if c < 'A' || c > 'Z' {
			return false
		}
	}
	return true
}
