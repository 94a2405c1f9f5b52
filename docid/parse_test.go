package docid

import (
	"strings"
	"testing"
)

func TestParseClassifies(t *testing.T) {
	atLimit := strings.Repeat("a", MaxLength)
	longestPrefix := strings.Repeat("p", maxPrefixLength)
	tests := []struct {
		in     string
		sep    rune
		kind   Kind
		prefix string
	}{
		{"users/ayende@ayende.com", '/', Semantic, ""},
		{"users/ayende", '/', Semantic, ""},
		{"", '/', GUID, ""},
		{"users/", '/', ServerSide, "users/"},
		{"users|", '/', Identity, "users"},
		{"Users|", '/', Identity, "Users"},
		{"users/|", '/', Identity, "users/"},
		{"a|b/", '/', ServerSide, "a|b/"},
		{"a|b", '/', Semantic, ""},
		{"utilisateurs/élodie", '/', Semantic, ""},
		{"utilisateurs/élodie/", '/', ServerSide, "utilisateurs/élodie/"},
		{"users-", '-', ServerSide, "users-"},
		{"users/", '-', Semantic, ""},
		{"users→", '→', ServerSide, "users→"},
		{atLimit, '/', Semantic, ""},
		{longestPrefix[1:] + "/", '/', ServerSide, longestPrefix[1:] + "/"},
		{longestPrefix + "|", '/', Identity, longestPrefix},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in, tt.sep)
		wantOK(t, err)
		want := Request{Kind: tt.kind, Raw: tt.in, Prefix: tt.prefix}
		if got != want {
			t.Errorf("Parse(%.40q, %q) = %+.40v, want %+.40v", tt.in, tt.sep, got, want)
		}
	}
}

func TestParseRejects(t *testing.T) {
	tooLongPrefix := strings.Repeat("p", maxPrefixLength)
	tests := []struct {
		in    string
		sep   rune
		rule  string
		value string
	}{
		{strings.Repeat("a", MaxLength+1), '/', "document id is longer than 2025 bytes", strings.Repeat("a", MaxLength+1)},
		{"users/\xff", '/', "document id is not valid UTF-8", "users/\xff"},
		{"users\\1", '/', "document id contains a backslash", "users\\1"},
		{"users/\x00", '/', "document id contains a control character", "users/\x00"},
		{"users/\n", '/', "document id contains a control character", "users/\n"},
		{"users/\x7f", '/', "document id contains a control character", "users/\x7f"},
		{"users/\u0085", '/', "document id contains a control character", "users/\u0085"},
		{"users/s\u200bam", '/', "document id contains an invisible format character U+200B (Unicode category Cf)", "users/s\u200bam"},
		{"users/\u202emas", '/', "document id contains an invisible format character U+202E (Unicode category Cf)", "users/\u202emas"},
		{"\ufeffusers|", '/', "document id contains an invisible format character U+FEFF (Unicode category Cf)", "\ufeffusers|"},
		{"users/\u00ad", '/', "document id contains an invisible format character U+00AD (Unicode category Cf)", "users/\u00ad"},
		{"\U000e0041users/", '/', "document id contains an invisible format character U+E0041 (Unicode category Cf)", "\U000e0041users/"},
		{"|", '/', "identity name is empty", "|"},
		{"/", '/', "server-side prefix is empty", "/"},
		{"→", '→', "server-side prefix is empty", "→"},
		{"a|b|", '/', "identity name contains a pipe", "a|b|"},
		{"||", '/', "identity name contains a pipe", "||"},
		{tooLongPrefix + "/", '/', "server-side prefix is longer than 1996 bytes", tooLongPrefix + "/"},
		{tooLongPrefix + "p|", '/', "identity name is longer than 1996 bytes", tooLongPrefix + "p|"},
		{"users|", '|', "separator cannot be a pipe", "|"},
		{"", '|', "separator cannot be a pipe", "|"},
		{"users/", ' ', "separator must be a printable, non-space character", " "},
		{"users\u0301", '\u0301', "separator cannot be a combining mark", "\u0301"},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in, tt.sep)
		if got != (Request{}) {
			t.Errorf("Parse(%.40q) returned %+.40v with its error", tt.in, got)
		}
		wantInvalid(t, err, tt.rule, tt.value)
	}
}

func TestParseLongIDMessageIsShort(t *testing.T) {
	id := "users/" + strings.Repeat("x", 3000-len("users/"))
	_, err := Parse(id, DefaultSeparator)
	wantInvalid(t, err, "document id is longer than 2025 bytes", id)
	msg := err.Error()
	if len(msg) > 120 || !strings.Contains(msg, "(3000 bytes)") || !strings.Contains(msg, `"users/xxx`) {
		t.Errorf("message %q should be short, start the value and give its length", msg)
	}
}
