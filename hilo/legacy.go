package hilo

import (
	"unicode/utf8"

	"github.com/idnode/idnode/docid"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// RavenDB 3.x clients print HiLo IDs without a node tag ("orders/1"), and with a server prefix
// when the database has a Raven/ServerPrefixForHilo document ("orders/NorthServer/1"). Teams
// that move to idnode keep those formats. RavenDB needs the node tag because its nodes replicate
// HiLo documents and two of them may hand out the same range; idnode reserves every range
// through Raft, unique cluster-wide, so IDs of one tag are unique in every format.

// WithoutNodeTag prints IDs without the "-" and node tag: "orders/1" instead of "orders/1-A"
// (RavenDB 3.x). Such an ID has the shape of an identity of the same name ("orders|" gives
// "orders/1" too): do not take identities for a tag printed this way.
func WithoutNodeTag() Option {
	return func(c *config) { c.withoutNodeTag = true }
}

// WithServerPrefix puts prefix between the tag and the number, with the separator on both
// sides: "orders/NorthServer/1-A", or with WithoutNodeTag "orders/NorthServer/1", RavenDB 3.x's
// format when Raven/ServerPrefixForHilo's ServerPrefix is "NorthServer/". Give it without the
// separator; NewGenerator refuses an empty prefix, or one with the separator or whitespace.
func WithServerPrefix(prefix string) Option {
	return func(c *config) { c.serverPrefix, c.hasServerPrefix = prefix, true }
}

// checkFormat refuses a server prefix that would not read as one part of the ID printed with
// the separator sep.
func (c *config) checkFormat(tag string, sep rune) error {
	if !c.hasServerPrefix {
		return nil
	}
	return docid.ValidateHiLoServerPrefix(tag, c.serverPrefix, sep)
}

// idParts returns what every ID of the range that resp granted starts and ends with: "orders/"
// and "-A" by default. A server prefix is joined with the separator that the server printed
// the tag with (the last character of its prefix), so that an ID uses one separator
// throughout.
func (c *config) idParts(resp *idnodev1.NextHiLoResponse) (prefix, suffix string) {
	prefix = resp.GetPrefix()
	if c.hasServerPrefix {
		sep, _ := utf8.DecodeLastRuneInString(prefix)
		prefix += c.serverPrefix + string(sep)
	}
	if !c.withoutNodeTag {
		suffix = "-" + resp.GetServerTag()
	}
	return prefix, suffix
}
