package docid

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestShorten(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{strings.Repeat("a", 64), strings.Repeat("a", 64)},
		{strings.Repeat("a", 65), strings.Repeat("a", 32) + "…(65 bytes)"},
		// 'é' is two bytes: byte 32 falls inside one, so the cut moves back to 31.
		{"a" + strings.Repeat("é", 40), "a" + strings.Repeat("é", 15) + "…(81 bytes)"},
		// '😀' is four bytes: bytes 29–32 form one, so the cut moves back to 29.
		{"a" + strings.Repeat("😀", 20), "a" + strings.Repeat("😀", 7) + "…(81 bytes)"},
	}
	for _, tt := range tests {
		got := shorten(tt.in)
		if got != tt.want {
			t.Errorf("shorten(%.20q…) = %q, want %q", tt.in, got, tt.want)
		}
		if utf8.ValidString(tt.in) && !utf8.ValidString(got) {
			t.Errorf("shorten(%.20q…) cut inside a rune: %q", tt.in, got)
		}
	}
}

func TestErrorQuotesValue(t *testing.T) {
	err := invalid("document id contains a backslash", `users\1`)
	if got, want := err.Error(), `document id contains a backslash: "users\\1"`; got != want {
		t.Errorf("Error() = %s, want %s", got, want)
	}
	// Invalid bytes and control characters come out escaped, so the message stays valid UTF-8.
	err = invalid("document id is not valid UTF-8", strings.Repeat("\xff\x00", 100))
	if msg := err.Error(); !utf8.ValidString(msg) || len(msg) > 200 {
		t.Errorf("Error() = %q, want short valid UTF-8", msg)
	}
}
