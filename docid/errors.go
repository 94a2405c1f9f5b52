package docid

import (
	"fmt"
	"unicode/utf8"
)

// ValidationError reports input that breaks a rule of the ID grammar, such as its length, a
// control or invisible character, or a misplaced separator. It is the only error type this
// package returns, so the gRPC layer can map every failure to INVALID_ARGUMENT with errors.As.
type ValidationError struct {
	Rule  string // e.g. "document id contains a backslash"
	Value string // the offending value, already shortened if long
}

// Error quotes the value so that control characters and invalid bytes, which are often the very
// reason for the error, show up as escapes instead of corrupting logs and status messages.
func (e *ValidationError) Error() string {
	return fmt.Sprintf("%s: %q", e.Rule, e.Value)
}

// invalid shortens the value itself so that no caller can forget to.
func invalid(rule, value string) *ValidationError {
	return &ValidationError{Rule: rule, Value: shorten(value)}
}

const (
	shortenAbove = 64 // values up to this many bytes are shown whole
	shortenKeep  = 32 // bytes kept from the start of a longer value
)

// shorten keeps messages readable when the input is a 3000-byte ID: echoing it whole would bloat
// logs and gRPC status messages. The full length stays visible.
func shorten(v string) string {
	if len(v) <= shortenAbove {
		return v
	}
	cut := shortenKeep
	// Back up to a rune start so the kept part does not end in half a character. Only invalid
	// UTF-8 can need more steps than this, and %q escapes its bytes one by one anyway.
	for i := 0; i < utf8.UTFMax-1 && !utf8.RuneStart(v[cut]); i++ {
		cut--
	}
	return fmt.Sprintf("%s…(%d bytes)", v[:cut], len(v))
}
