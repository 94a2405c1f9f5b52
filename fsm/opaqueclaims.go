package fsm

import (
	"strings"

	"github.com/idnode/idnode/opaque"
)

// Claims and forms (DESIGN.md, "Opaque collections"): a semantic ID claimed under an opaque
// collection, "orders/<13 symbols>", may be the form of a value the counter has not reached.
// Such a value is skipped when the counter gets there, as a claimed "orders/N" is skipped by a
// plain counter, and a claim of the form of a value the counter has passed is refused.
//
// The state keeps, per identity prefix, the claims whose last part has the shape of a form
// (formClaims), whether the collection is opaque yet or not, so a collection that turns opaque
// decrypts those claims only, never scans every claim; and, per opaque collection, the values
// those forms decrypt to (formNumbers, the same structure as a plain counter's claimed
// numbers), so an increment skips them as freeValues skips claimed numbers: a binary search
// and a step a skipped value, never an encryption a value.

// formAlphabet is the Crockford alphabet as a folded key holds it: lower case.
const formAlphabet = "0123456789abcdefghjkmnpqrstvwxyz"

// formShaped splits a claim's key into its identity prefix and its last part when the last
// part could be a form: 13 symbols of formAlphabet. Keys whose last part has an i, l, o or u
// are never a form's key, since the encoder writes none of them.
func formShaped(key, sep string) (prefix, form string, ok bool) {
	i := strings.LastIndex(key, sep)
	if i <= 0 {
		return "", "", false
	}
	form = key[i+len(sep):]
	if len(form) != opaque.IdentityLen {
		return "", "", false
	}
	for j := range len(form) {
		if strings.IndexByte(formAlphabet, form[j]) < 0 {
			return "", "", false
		}
	}
	return key[:i], form, true
}

// formValue is the counter value whose form is the last part of a form-shaped claim under
// prefix, when prefix is an opaque collection and the form decrypts into its counter's range.
func (d *database) formValue(prefix, form string) (int64, bool) {
	codec, err := d.opaqueCodec(prefix)
	if codec == nil || err != nil {
		return 0, false
	}
	n, err := codec.Decode(form)
	return n, err == nil
}

// formIssued reports whether the claim key is the form of a value its opaque collection's
// counter has passed: that ID may have been handed out. One decryption at most.
func (d *database) formIssued(key, sep string) bool {
	prefix, form, ok := formShaped(key, sep)
	if !ok {
		return false
	}
	n, ok := d.formValue(prefix, form)
	return ok && n <= d.identities[prefix]
}

// indexFormClaim notes a claim whose key has the shape of a form, and the value its form
// stands for when its prefix is opaque.
func (d *database) indexFormClaim(key, sep string) {
	prefix, form, ok := formShaped(key, sep)
	if !ok {
		return
	}
	if d.formClaims == nil {
		d.formClaims = make(map[string]map[string]bool)
	}
	if d.formClaims[prefix] == nil {
		d.formClaims[prefix] = make(map[string]bool)
	}
	d.formClaims[prefix][form] = true
	d.addFormNumber(prefix, form)
}

// addFormNumber adds the value of a claimed form under prefix to the values its counter skips.
func (d *database) addFormNumber(prefix, form string) {
	n, ok := d.formValue(prefix, form)
	if !ok {
		return
	}
	if d.formNumbers == nil {
		d.formNumbers = make(map[string]*claimedNumbers)
	}
	nums := d.formNumbers[prefix]
	if nums == nil {
		nums = &claimedNumbers{}
		d.formNumbers[prefix] = nums
	}
	nums.add(n)
}

// unindexFormClaim undoes indexFormClaim for a released claim.
func (d *database) unindexFormClaim(key, sep string) {
	prefix, form, ok := formShaped(key, sep)
	if !ok {
		return
	}
	if forms := d.formClaims[prefix]; forms != nil {
		if delete(forms, form); len(forms) == 0 {
			delete(d.formClaims, prefix)
		}
	}
	if n, ok := d.formValue(prefix, form); ok {
		if nums := d.formNumbers[prefix]; nums != nil && nums.remove(n) && nums.empty() {
			delete(d.formNumbers, prefix)
		}
	}
}

// indexOpaqueCollection puts the form-shaped claims of a collection that just turned opaque
// into the values its counter skips: one decryption each, in sorted order.
func (d *database) indexOpaqueCollection(key string) {
	for _, form := range sortedKeys(d.formClaims[key]) {
		d.addFormNumber(key, form)
	}
}
