package docid

import (
	"fmt"
	"testing"
)

func TestParseSeparatorAccepts(t *testing.T) {
	for _, s := range []string{"/", "-", ":", ".", "_", "#", "→", "·"} {
		r, err := ParseSeparator(s)
		wantOK(t, err)
		if string(r) != s {
			t.Errorf("ParseSeparator(%q) = %q", s, r)
		}
	}
}

func TestParseSeparatorRejects(t *testing.T) {
	tests := []struct{ in, rule, value string }{
		{"", "separator must be exactly one character", ""},
		{"//", "separator must be exactly one character", "//"},
		{"\xff", "separator is not valid UTF-8", "\xff"},
		{"|", "separator cannot be a pipe", "|"},
		{`\`, "separator cannot be a backslash", `\`},
		{"a", "separator cannot be a letter or digit", "a"},
		{"Z", "separator cannot be a letter or digit", "Z"},
		{"7", "separator cannot be a letter or digit", "7"},
		{"é", "separator cannot be a letter or digit", "é"},
		{" ", "separator must be a printable, non-space character", " "},
		{"\u00a0", "separator must be a printable, non-space character", "\u00a0"},
		{"\t", "separator must be a printable, non-space character", "\t"},
		{"\x00", "separator must be a printable, non-space character", "\x00"},
		{"\u200b", "separator must be a printable, non-space character", "\u200b"},
	}
	for _, tt := range tests {
		r, err := ParseSeparator(tt.in)
		if r != 0 {
			t.Errorf("ParseSeparator(%q) returned %q with its error", tt.in, r)
		}
		wantInvalid(t, err, tt.rule, tt.value)
	}
}

// Parse and ValidateConcrete take the separator as a rune, which can hold what no string can.
func TestSeparatorRuneOutsideUnicode(t *testing.T) {
	for _, r := range []rune{-1, 0xD800, 0x110000} {
		const rule = "separator is not a valid Unicode character"
		_, err := Parse("users/", r)
		wantInvalid(t, err, rule, fmt.Sprintf("%U", r))
		wantInvalid(t, ValidateConcrete("users/1", r), rule, fmt.Sprintf("%U", r))
	}
}
