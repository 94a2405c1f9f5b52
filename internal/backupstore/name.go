package backupstore

import "fmt"

// MaxNameLen bounds a name: it fits in a file name on every filesystem (255 bytes) and in an
// S3 key (1024) after a prefix.
const MaxNameLen = 200

// ValidateName refuses a name that could leave the store's folder or prefix, or hide among
// its temp files: a name is 1 to MaxNameLen bytes of ASCII letters, digits, '.', '-' and '_',
// not starting with '.' (so neither "." nor ".." nor a temp file's name), and with no '/'.
func ValidateName(name string) error {
	if name == "" {
		return fmt.Errorf("backupstore: empty object name")
	}
	if len(name) > MaxNameLen {
		return fmt.Errorf("backupstore: object name of %d bytes, more than %d", len(name), MaxNameLen)
	}
	if name[0] == '.' {
		return fmt.Errorf("backupstore: object name %q starts with '.'", name)
	}
	for _, c := range []byte(name) {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_'
		if !ok {
			return fmt.Errorf("backupstore: object name %q holds %q: only letters, digits, '.', '-' and '_' are allowed", name, c)
		}
	}
	return nil
}
