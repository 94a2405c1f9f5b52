package docid

import (
	"fmt"
	"strconv"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"
)

// MaxAnswerBytes is the largest answer a request may need: grpc-go's default limit on a
// received message (4 MiB), which every client has unless it raises it. An answer above it
// fails on the client after the server already moved its counters, burning the values, so the
// request is refused before anything moves.
const MaxAnswerBytes = 4 << 20

// answerOverhead leaves room for the rest of a GenerateResponse and gRPC's framing.
const answerOverhead = 1 << 10

// maxIDBytes is the longest ID a request of kind k can produce: prefix as parsed (for a
// server-side request it ends with the separator), sep, and the longest node tag.
func maxIDBytes(k Kind, prefix string, sep rune) int {
	const maxDigits, maxTag = 20, 4 // an int64 or uint64 in decimal, a node tag
	switch k {
	case Identity:
		return len(prefix) + utf8.RuneLen(sep) + maxDigits
	case ServerSide:
		return len(prefix) + maxDigits + 1 + maxTag
	case GUID:
		return 36
	}
	return len(prefix)
}

// ValidateAnswerSize refuses a request whose count IDs would not fit MaxAnswerBytes.
func ValidateAnswerSize(k Kind, prefix string, sep rune, count int64) error {
	per := int64(protowire.SizeTag(1) + protowire.SizeBytes(maxIDBytes(k, prefix, sep)))
	if fits := (MaxAnswerBytes - answerOverhead) / per; count > fits {
		return invalid(fmt.Sprintf("count × up to %d bytes per ID would not fit the %d-byte answer limit; ask for at most %d per call, or use a shorter prefix",
			per, MaxAnswerBytes, fits), strconv.FormatInt(count, 10))
	}
	return nil
}
