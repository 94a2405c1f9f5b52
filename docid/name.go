package docid

import "strings"

// ValidateName checks an identity name or HiLo tag; what ("identity name", "hilo tag") names it
// in messages. It holds the same rules Parse holds the name in "name|" to, so NextIdentity and
// Generate accept exactly the same names. ValidateHiLoTag adds the rules of a HiLo tag.
func ValidateName(what, name string) error {
	if name == "" {
		return invalid(what+" is empty", name)
	}
	if err := checkText(what, name, maxPrefixLength); err != nil {
		return err
	}
	if strings.ContainsRune(name, '|') {
		return invalid(what+" contains a pipe", name)
	}
	return nil
}
