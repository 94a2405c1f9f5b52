// Package docid is the document-ID grammar of idnode: it tells which strategy a request string
// asks for, rejects input that breaks the rules of an ID (its length, its characters, its
// separator), and formats the IDs the strategies produce.
//
// A request string is read by its last character, with sep the cluster separator ('/' by
// default):
//
//	""               GUID         the node makes a UUID
//	"users/"         ServerSide   ends with sep: "users/0000000000000000001-A" from the node's etag
//	"users|"         Identity     ends with '|': "users/1" from the cluster-wide counter
//	"users/ayende"   Semantic     anything else: echoed unchanged
//
// Every non-empty string must be valid UTF-8 of at most MaxLength bytes and contain neither '\'
// nor a control character. Prefixes (identity names, server-side prefixes, HiLo tags) are held
// to a shorter limit so that every ID generated from them still fits in MaxLength and passes
// ValidateConcrete.
//
// Every validation failure is a *ValidationError, so a transport layer can map all of them to
// one status code with errors.As.
package docid
