package docid

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ValidateHiLoTag checks a HiLo tag printed with the separator sep: the rules of an identity
// name (ValidateName), and neither blank nor ending with sep, whose IDs would read wrong
// ("orders/" prints "orders//1-A", "  " prints "  /1-A").
func ValidateHiLoTag(tag string, sep rune) error {
	if err := checkSeparator(sep); err != nil {
		return err
	}
	if err := ValidateName("hilo tag", tag); err != nil {
		return err
	}
	switch {
	case strings.TrimSpace(tag) == "":
		return invalid("hilo tag is blank", tag)
	case strings.HasSuffix(tag, string(sep)):
		return invalid(fmt.Sprintf("hilo tag ends with the separator %q: give the tag without it", sep), tag)
	}
	return nil
}

// ValidateHiLoServerPrefix checks a server prefix that a HiLo client prints between tag and
// number ("NorthServer" in "orders/NorthServer/1", RavenDB's Raven/ServerPrefixForHilo): one
// word, so that the ID still reads as tag, prefix and number. The tag and the prefix together
// are held to the length of a tag, so that every ID printed from them is a valid document ID.
func ValidateHiLoServerPrefix(tag, prefix string, sep rune) error {
	if err := checkSeparator(sep); err != nil {
		return err
	}
	if prefix == "" {
		return invalid("hilo server prefix is empty", prefix)
	}
	if err := checkText("hilo server prefix", prefix, maxPrefixLength); err != nil {
		return err
	}
	switch {
	case strings.ContainsRune(prefix, sep):
		return invalid(fmt.Sprintf("hilo server prefix contains the separator %q: give it without one (the client adds it)", sep), prefix)
	case strings.ContainsFunc(prefix, unicode.IsSpace):
		return invalid("hilo server prefix contains whitespace", prefix)
	case strings.ContainsRune(prefix, '|'):
		return invalid("hilo server prefix contains a pipe", prefix)
	case len(tag)+utf8.RuneLen(sep)+len(prefix) > maxPrefixLength:
		return invalid(fmt.Sprintf("hilo tag, separator and server prefix are longer than %d bytes together", maxPrefixLength), tag+string(sep)+prefix)
	}
	return nil
}
