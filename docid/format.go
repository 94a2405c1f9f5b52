package docid

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// etagDigits is the zero-padded width of server-side numbers, so that IDs from one node sort by
// etag as plain strings.
const etagDigits = 19

// The formatters trust their arguments: they run once per generated ID, after the inputs were
// validated when the request came in. They build in a strings.Builder grown to the ID's
// length, whose String does not copy: one allocation an ID, the string. A byte slice turned
// into a string costs two unless the compiler keeps the slice on the stack, which it does
// for some lengths and builds only (TestFormatAllocatesTheIDOnly holds it to one).

// ServerSideID formats a server-side ID: ServerSideID("users/", 1, "A") is
// "users/0000000000000000001-A". An etag above 19 digits (10^19 IDs) is written in full.
func ServerSideID(prefix string, etag uint64, nodeTag string) string {
	var digits [20]byte
	num := strconv.AppendUint(digits[:0], etag, 10)
	var b strings.Builder
	b.Grow(len(prefix) + max(etagDigits, len(num)) + 1 + len(nodeTag))
	b.WriteString(prefix)
	for i := len(num); i < etagDigits; i++ {
		b.WriteByte('0')
	}
	b.Write(num)
	b.WriteByte('-')
	b.WriteString(nodeTag)
	return b.String()
}

// IdentityID formats an identity result: IdentityID("users", '/', 1) is "users/1".
func IdentityID(name string, sep rune, value int64) string {
	var digits [20]byte
	num := strconv.AppendInt(digits[:0], value, 10)
	var b strings.Builder
	b.Grow(len(name) + utf8.UTFMax + len(num))
	b.WriteString(name)
	b.WriteRune(sep)
	b.Write(num)
	return b.String()
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
