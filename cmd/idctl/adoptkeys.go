package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/idnode/idnode/docid"
)

// stringKeys reads the keys of a text column one by one, by the collection's conventions: an
// identity counter's keys are "orders/17", a HiLo tag's "orders/17-A" (the prefix compared
// without regard to case, as idnode compares names). Every key must be of that form: one of
// another form, or a column mixing both, is refused, since the counter could not be said to
// continue it.
type stringKeys struct {
	kind    counterKind
	name    string
	sep     rune
	rows    int64
	largest int64  // the largest number read so far
	key     string // the key that holds it
	bad     string // the first key not of the form, if any
	other   string // what that key is instead
}

// form is the keys' form, for the reasons a refusal gives.
func (k *stringKeys) form() string {
	if k.kind == kindHiLo {
		return k.name + string(k.sep) + "N-TAG"
	}
	return k.name + string(k.sep) + "N"
}

// add reads one key; after the first that is not of the form the rest are only counted.
func (k *stringKeys) add(key string) {
	k.rows++
	if k.bad != "" {
		return
	}
	n, other := k.number(key)
	if other != "" {
		k.bad, k.other = key, other
		return
	}
	if n > k.largest {
		k.largest, k.key = n, key
	}
}

// number is key's number, or what key is instead of the form.
func (k *stringKeys) number(key string) (int64, string) {
	sh, err := docid.ExplainID(key, k.sep)
	if err != nil || sh.Prefix == "" {
		return 0, "not an ID of the form"
	}
	if !strings.EqualFold(sh.Prefix, k.name+string(k.sep)) {
		return 0, fmt.Sprintf("of the collection %q", strings.TrimSuffix(sh.Prefix, string(k.sep)))
	}
	tagged := sh.NodeTag != ""
	switch {
	case k.kind == kindHiLo && !tagged:
		return 0, "an identity's form, without a node tag (a mixed column)"
	case k.kind == kindIdentity && tagged:
		return 0, "a HiLo ID's form, with a node tag (a mixed column)"
	case sh.Number[0] == '0':
		return 0, "a zero-padded number (a server-side ID)"
	}
	n, err := strconv.ParseInt(sh.Number, 10, 64)
	if err != nil {
		return 0, "a number past the largest int64"
	}
	return n, ""
}

// err is the refusal of a column that holds a key not of the form, naming the column.
func (k *stringKeys) err(col adoptTable) error {
	if k.bad == "" {
		return nil
	}
	return fmt.Errorf("%s: key %q is %s, not %s: this column does not continue %s %s", col, shorten(k.bad), k.other, k.form(), k.kind, k.name)
}

// shorten keeps a hostile key's echo to a line.
func shorten(s string) string {
	const max = 60
	if len(s) <= max {
		return s
	}
	return s[:max] + "…"
}
