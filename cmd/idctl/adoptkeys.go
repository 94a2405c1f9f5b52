package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/idnode/idnode/docid"
)

// stringKeys reads the keys of a text column one by one, by the collection's conventions: an
// identity counter's keys are "orders/17", a HiLo tag's "orders/17-A" (the prefix compared
// without regard to case, as idnode compares names). Every key must be of that form: a key of
// another collection or of no ID form, a column of the other counter's form, or one that mixes
// both, is refused, since the counter could not be said to continue it.
type stringKeys struct {
	kind  counterKind
	name  string
	sep   rune
	bad   string // the first key of no form of the collection, if any
	other string // what that key is instead
	// Per form, tagged (orders/17-A) or not (orders/17): how many keys, the first of them,
	// the largest number and its key.
	forms [2]keyForm
}

type keyForm struct {
	count, largest int64
	first, key     string
}

// add reads one key.
func (k *stringKeys) add(key string) {
	n, tagged, other := k.number(key)
	if other != "" {
		if k.bad == "" {
			k.bad, k.other = key, other
		}
		return
	}
	f := &k.forms[boolIndex(tagged)]
	if f.count++; f.count == 1 {
		f.first = key
	}
	if n > f.largest {
		f.largest, f.key = n, key
	}
}

// number is key's number and whether it carries a node tag, or what key is instead of an ID
// of the collection.
func (k *stringKeys) number(key string) (int64, bool, string) {
	sh, err := docid.ExplainID(key, k.sep)
	if err != nil || sh.Prefix == "" || sh.Number[0] == '0' {
		return 0, false, "not an ID of the collection's forms"
	}
	if !strings.EqualFold(sh.Prefix, k.name+string(k.sep)) {
		return 0, false, fmt.Sprintf("of the collection %q", strings.TrimSuffix(sh.Prefix, string(k.sep)))
	}
	n, err := strconv.ParseInt(sh.Number, 10, 64)
	if err != nil {
		return 0, false, "a number past the largest int64"
	}
	return n, sh.NodeTag != "", ""
}

// largest is the largest number of the counter's own form, and its key.
func (k *stringKeys) largest() (int64, string) {
	f := k.forms[boolIndex(k.kind == kindHiLo)]
	return f.largest, f.key
}

// err is the refusal of a column whose keys are not all of the counter's form, naming the
// column; nil when they are.
func (k *stringKeys) err(col adoptTable) error {
	hilo, identity := k.forms[1], k.forms[0]
	forms := fmt.Sprintf("%s%cN-TAG (HiLo) or %s%cN (identity)", k.name, k.sep, k.name, k.sep)
	switch {
	case k.bad != "":
		return fmt.Errorf("%s: key %q is %s, not %s", col, shorten(k.bad), k.other, forms)
	case hilo.count > 0 && identity.count > 0:
		return fmt.Errorf("%s: a mixed column: %d keys like %q and %d like %q; adopt takes a column of one form", col,
			hilo.count, shorten(hilo.first), identity.count, shorten(identity.first))
	case k.kind == kindHiLo && identity.count > 0:
		return fmt.Errorf("%s: keys like %q are an identity's, not HiLo tag %s's: adopt it as identity", col, shorten(identity.first), k.name)
	case k.kind == kindIdentity && hilo.count > 0:
		return fmt.Errorf("%s: keys like %q are a HiLo tag's, not identity %s's: adopt it as hilo", col, shorten(hilo.first), k.name)
	}
	return nil
}

func boolIndex(b bool) int {
	if b {
		return 1
	}
	return 0
}

// shorten keeps a hostile key's echo to a line.
func shorten(s string) string {
	const max = 60
	if len(s) <= max {
		return s
	}
	return s[:max] + "…"
}
