package docid

import (
	"strconv"
	"unicode/utf8"
)

// etagDigits is the zero-padded width of server-side numbers, so that IDs from one node sort by
// etag as plain strings.
const etagDigits = 19

// The formatters trust their arguments: they run once per generated ID, after the inputs were
// validated when the request came in.

// ServerSideID formats a server-side ID: ServerSideID("users/", 1, "A") is
// "users/0000000000000000001-A". An etag above 19 digits (10^19 IDs) is written in full.
func ServerSideID(prefix string, etag uint64, nodeTag string) string {
	var digits [20]byte
	num := strconv.AppendUint(digits[:0], etag, 10)
	b := make([]byte, 0, len(prefix)+max(etagDigits, len(num))+1+len(nodeTag))
	b = append(b, prefix...)
	for i := len(num); i < etagDigits; i++ {
		b = append(b, '0')
	}
	b = append(b, num...)
	b = append(b, '-')
	b = append(b, nodeTag...)
	return string(b)
}

// IdentityID formats an identity result: IdentityID("users", '/', 1) is "users/1".
func IdentityID(name string, sep rune, value int64) string {
	b := make([]byte, 0, len(name)+utf8.UTFMax+20)
	b = append(b, name...)
	b = utf8.AppendRune(b, sep)
	b = strconv.AppendInt(b, value, 10)
	return string(b)
}

// HiLoID formats an ID a HiLo client prints: HiLoID("orders/", 17, "A") is "orders/17-A". The
// prefix already ends with the separator; the node tag is that of the node that granted the range.
func HiLoID(prefix string, n int64, nodeTag string) string {
	b := make([]byte, 0, len(prefix)+20+1+len(nodeTag))
	b = append(b, prefix...)
	b = strconv.AppendInt(b, n, 10)
	b = append(b, '-')
	b = append(b, nodeTag...)
	return string(b)
}
