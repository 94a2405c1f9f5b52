package docid

import (
	"fmt"
	"strings"
)

// ValidateConcrete checks a semantic ID where a concrete ID is required (a claim, a stored
// entity): one ending with sep or '|' would be a request for a new ID, not an ID.
func ValidateConcrete(id string, sep rune) error {
	if err := checkSeparator(sep); err != nil {
		return err
	}
	if id == "" {
		return invalid("document id is empty", id)
	}
	if err := checkText("document id", id, MaxLength); err != nil {
		return err
	}
	switch {
	case strings.HasSuffix(id, "|"):
		return invalid("document id ends with a pipe where a concrete id is required", id)
	case strings.HasSuffix(id, string(sep)):
		return invalid(fmt.Sprintf("document id ends with the separator %q where a concrete id is required", sep), id)
	}
	return nil
}
