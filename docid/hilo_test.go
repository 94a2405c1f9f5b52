package docid

import (
	"strings"
	"testing"
)

func TestValidateHiLoTag(t *testing.T) {
	longest := strings.Repeat("n", maxPrefixLength)
	for _, c := range []struct {
		tag string
		sep rune
	}{
		{"orders", '/'}, {"Orders", '/'}, {"a/b", '/'}, {"orders/", '-'}, {"orders-", '/'}, {" orders", '/'}, {longest, '/'},
	} {
		wantOK(t, ValidateHiLoTag(c.tag, c.sep))
	}
	tests := []struct {
		tag   string
		sep   rune
		rule  string
		value string
	}{
		{"", '/', "hilo tag is empty", ""},
		{"   ", '/', "hilo tag is blank", "   "},
		{"\u00a0", '/', "hilo tag is blank", "\u00a0"},
		{"orders/", '/', `hilo tag ends with the separator '/': give the tag without it`, "orders/"},
		{"/", '/', `hilo tag ends with the separator '/': give the tag without it`, "/"},
		{"orders-", '-', `hilo tag ends with the separator '-': give the tag without it`, "orders-"},
		{"orders|", '/', "hilo tag contains a pipe", "orders|"},
		{`ord\ers`, '/', "hilo tag contains a backslash", `ord\ers`},
		{longest + "n", '/', "hilo tag is longer than 1996 bytes", longest + "n"},
		{"orders", '|', "separator cannot be a pipe", "|"},
	}
	for _, tt := range tests {
		wantInvalid(t, ValidateHiLoTag(tt.tag, tt.sep), tt.rule, tt.value)
	}
}

// A HiLo tag is an identity name with two more rules: whatever ValidateName refuses, so does
// ValidateHiLoTag.
func TestValidateHiLoTagHoldsTheNameRules(t *testing.T) {
	for _, tag := range []string{"", "a|b", `a\b`, "a\x00b", "\xff", strings.Repeat("n", maxPrefixLength+1)} {
		if ValidateName("hilo tag", tag) == nil || ValidateHiLoTag(tag, '/') == nil {
			t.Errorf("tag %.40q: ValidateName says %v, ValidateHiLoTag says %v; want both to refuse",
				tag, ValidateName("hilo tag", tag), ValidateHiLoTag(tag, '/'))
		}
	}
}

func TestValidateHiLoServerPrefix(t *testing.T) {
	for _, c := range []struct {
		tag, prefix string
		sep         rune
	}{
		{"orders", "NorthServer", '/'}, {"orders", "North/Server", '-'}, {"orders", "nörd-1", '/'},
		{strings.Repeat("n", maxPrefixLength-2), "x", '/'},
	} {
		wantOK(t, ValidateHiLoServerPrefix(c.tag, c.prefix, c.sep))
	}
	long := strings.Repeat("n", maxPrefixLength-2)
	tests := []struct {
		tag, prefix string
		sep         rune
		rule        string
		value       string
	}{
		{"orders", "", '/', "hilo server prefix is empty", ""},
		{"orders", "NorthServer/", '/', `hilo server prefix contains the separator '/': give it without one (the client adds it)`, "NorthServer/"},
		{"orders", "North-Server", '-', `hilo server prefix contains the separator '-': give it without one (the client adds it)`, "North-Server"},
		{"orders", "North Server", '/', "hilo server prefix contains whitespace", "North Server"},
		{"orders", "North\tServer", '/', "hilo server prefix contains a control character", "North\tServer"},
		{"orders", "North|", '/', "hilo server prefix contains a pipe", "North|"},
		{"orders", `North\`, '/', "hilo server prefix contains a backslash", `North\`},
		{long, "xy", '/', "hilo tag, separator and server prefix are longer than 1996 bytes together", long + "/xy"},
		{"orders", "North", '|', "separator cannot be a pipe", "|"},
	}
	for _, tt := range tests {
		wantInvalid(t, ValidateHiLoServerPrefix(tt.tag, tt.prefix, tt.sep), tt.rule, tt.value)
	}
}
