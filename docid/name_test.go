package docid

import (
	"strings"
	"testing"
)

func TestValidateName(t *testing.T) {
	longest := strings.Repeat("n", maxPrefixLength)
	for _, name := range []string{"users", "Users", "orders/", "a/b/c", "élodie", longest} {
		wantOK(t, ValidateName("identity name", name))
	}
	tests := []struct{ what, in, rule string }{
		{"identity name", "", "identity name is empty"},
		{"hilo tag", "", "hilo tag is empty"},
		{"hilo tag", longest + "n", "hilo tag is longer than 1996 bytes"},
		{"identity name", "us\xffers", "identity name is not valid UTF-8"},
		{"identity name", `us\ers`, "identity name contains a backslash"},
		{"hilo tag", "orders\x1b", "hilo tag contains a control character"},
		{"identity name", "\ufeffusers", "identity name contains an invisible format character U+FEFF (Unicode category Cf)"},
		{"hilo tag", "or\u2066ders", "hilo tag contains an invisible format character U+2066 (Unicode category Cf)"},
		{"identity name", "users|", "identity name contains a pipe"},
		{"hilo tag", "a|b", "hilo tag contains a pipe"},
	}
	for _, tt := range tests {
		wantInvalid(t, ValidateName(tt.what, tt.in), tt.rule, tt.in)
	}
}

// A name Parse accepts in "name|" must be one NextIdentity accepts too, and the other way round.
func TestValidateNameAgreesWithParse(t *testing.T) {
	for _, name := range []string{"users", "a/b", "", "a|b", `a\b`, strings.Repeat("n", maxPrefixLength+1)} {
		_, parseErr := Parse(name+"|", DefaultSeparator)
		nameErr := ValidateName("identity name", name)
		if (parseErr == nil) != (nameErr == nil) {
			t.Errorf("name %.40q: Parse says %v, ValidateName says %v", name, parseErr, nameErr)
		}
	}
}
