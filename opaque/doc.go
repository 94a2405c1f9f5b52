// Package opaque turns a counter value into a public ID that reveals neither how many IDs came
// before it nor when it was issued, and back: NIST SP 800-38G FF1 over AES, a keyed permutation
// of fixed-length numeral strings, and a Codec that writes a counter value as a fixed number of
// Crockford base-32 symbols.
//
// Because FF1 is a permutation of its domain, two counter values never give one public form:
// uniqueness stays the counter's. The key is the secret; anyone holding it can read every ID
// back, and anyone without it learns nothing from an ID but that it has the right length and
// alphabet (docs/opaque-ids.md, docs/decisions/0039-opaque-ids-ff1.md).
//
// The node writes the forms of an opaque collection's identities, and of an opaque-numeric
// database's numeric IDs, with this package (server/opaqueids.go), under the database's key
// from the replicated state (fsm.OpaqueSetting).
package opaque
