package hilopool

import (
	"cmp"
	"strings"
)

// Key names one pool.
//
// Database is canonical, as fsm.DatabaseName returns it ("default", lower case): the caller
// canonicalises it, this package does not know the FSM's rules. Tag is as the client gave it;
// the store compares it case-insensitively, like the FSM, by folding it with strings.ToLower.
type Key struct{ Database, Tag string }

// folded is k as the store keeps it.
func (k Key) folded() Key {
	return Key{Database: k.Database, Tag: strings.ToLower(k.Tag)}
}

// compareKeys orders keys by database, then tag.
func compareKeys(a, b Key) int {
	return cmp.Or(strings.Compare(a.Database, b.Database), strings.Compare(a.Tag, b.Tag))
}
