package docid

import "strings"

// ValidateName checks an identity name or a HiLo tag; what says which one it is in messages
// ("identity name", "hilo tag"). It applies the rules that Parse applies to the name in
// "name|", so NextIdentity and Generate accept exactly the same names. ValidateHiLoTag adds
// the rules of a HiLo tag.
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
