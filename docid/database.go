package docid

// maxDatabaseNameLength bounds a database name: it is a metric label and part of every key.
const maxDatabaseNameLength = 64

// ValidateDatabaseName checks a database name: 1–64 ASCII letters, digits, '-', '_' or '.',
// starting with a letter or digit (RavenDB's rule, less its non-ASCII letters). Names compare
// case-insensitively.
func ValidateDatabaseName(name string) error {
	switch {
	case name == "":
		return invalid("database name is empty", name)
	case len(name) > maxDatabaseNameLength:
		return invalid("database name is longer than 64 characters", name)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		letterOrDigit := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !letterOrDigit && (i == 0 || c != '-' && c != '_' && c != '.') {
			return invalid("database name must be ASCII letters, digits, '-', '_' or '.', starting with a letter or digit", name)
		}
	}
	return nil
}

// ValidateDatabaseRef checks the database a request or record names: empty names the default
// database, anything else must be a valid name.
func ValidateDatabaseRef(name string) error {
	if name == "" {
		return nil
	}
	return ValidateDatabaseName(name)
}
