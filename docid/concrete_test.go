package docid

import (
	"strings"
	"testing"
)

func TestValidateConcrete(t *testing.T) {
	for _, id := range []string{"users/1", "users/ayende@ayende.com", "a|b", "users/", strings.Repeat("a", MaxLength)} {
		sep := DefaultSeparator
		if strings.HasSuffix(id, "/") {
			sep = '-'
		}
		wantOK(t, ValidateConcrete(id, sep))
	}
	tests := []struct {
		in   string
		sep  rune
		rule string
	}{
		{"", '/', "document id is empty"},
		{strings.Repeat("a", MaxLength+1), '/', "document id is longer than 2025 bytes"},
		{"users/\xc3", '/', "document id is not valid UTF-8"},
		{`users\1`, '/', "document id contains a backslash"},
		{"users/1\r", '/', "document id contains a control character"},
		{"users|", '/', "document id ends with a pipe where a concrete id is required"},
		{"users/", '/', `document id ends with the separator '/' where a concrete id is required`},
		{"users-", '-', `document id ends with the separator '-' where a concrete id is required`},
		{"/", '/', `document id ends with the separator '/' where a concrete id is required`},
		{"users/1", '|', "separator cannot be a pipe"},
	}
	for _, tt := range tests {
		value := tt.in
		if tt.sep == '|' {
			value = "|"
		}
		wantInvalid(t, ValidateConcrete(tt.in, tt.sep), tt.rule, value)
	}
}
