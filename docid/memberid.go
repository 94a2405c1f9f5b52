package docid

import "strings"

// incarnationChars is how much of the incarnation the ID keeps: 64 bits, so two data dirs of
// one tag never share an ID in practice, while Status output stays readable.
const incarnationChars = 16

// MemberID returns the Raft server ID of the node with tag whose data dir has incarnation, e.g.
// "C-1f0c9e2a7b3d4c5e". The ID carries the incarnation so that a node that lost its data dir
// and came back under the same tag is a different Raft member: it cannot vote or be counted in
// a quorum as its old self (docs/decisions/0016-raft-identity-is-the-data-dir.md).
func MemberID(tag, incarnation string) string {
	hex := strings.ReplaceAll(incarnation, "-", "")
	if len(hex) > incarnationChars {
		hex = hex[:incarnationChars]
	}
	return tag + "-" + hex
}

// MemberTag returns the node tag a member ID carries. Data dirs made before IDs carried
// incarnations use the bare tag as ID; that is accepted too. ok is false for anything else.
func MemberTag(id string) (tag string, ok bool) {
	tag, _, _ = strings.Cut(id, "-")
	return tag, ValidateNodeTag(tag) == nil
}
