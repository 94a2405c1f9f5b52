package fsm

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/idnode/idnode/opaque"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// formOf is the form of value in the collection, as the server writes it.
func formOf(t testing.TB, key []byte, collection string, value int64) string {
	t.Helper()
	c, err := opaque.NewIdentityCodec(key, collection)
	if err != nil {
		t.Fatal(err)
	}
	form, err := c.Encode(value)
	if err != nil {
		t.Fatal(err)
	}
	return form
}

// issuedForms issues count identities of name and returns their forms, each value once.
func issuedForms(t *testing.T, f *FSM, name string, count int64) (IdentityRange, []string) {
	t.Helper()
	r := mustIdentity(t, f, name, count, "")
	if r.Err != nil {
		t.Fatalf("%s| x%d: %v", name, count, r.Err)
	}
	var forms []string
	for v := range r.All() {
		forms = append(forms, formOf(t, opaqueKeyA, foldKey(name), v))
	}
	if int64(len(forms)) != count {
		t.Fatalf("%s| x%d gave %d values: %+v", name, count, len(forms), r)
	}
	return r, forms
}

// A form claimed under an opaque collection is never issued: the counter skips its value, in
// whatever case the claim spelled it, whether the claim came before the collection turned
// opaque or after, and after a snapshot too.
func TestClaimedFormsAreNeverIssued(t *testing.T) {
	f := New()
	// Claimed while the collection was still plain, in lower case; and a plain claim, which
	// skips nothing once the collection gives forms.
	mustClaim(t, f, "", "orders/"+strings.ToLower(formOf(t, opaqueKeyA, "orders", 5)), "orders/3")
	mustMakeOpaque(t, f, &raftv1.MakeOpaque{Collections: []string{"orders"}, Key: opaqueKeyA})
	mustClaim(t, f, "", "Orders/"+formOf(t, opaqueKeyA, "orders", 9))
	restored := mustRestore(t, snapshotBytes(t, f))
	for name, g := range map[string]*FSM{"original": f, "restored": restored} {
		r, forms := issuedForms(t, g, "orders", 10)
		if r.First != 1 || r.Last != 12 || !slices.Equal(r.Skipped, []int64{5, 9}) {
			t.Fatalf("%s: orders| x10 across claimed forms of 5 and 9 = %+v; want 1..12 without 5 and 9", name, r)
		}
		for _, claimed := range []string{formOf(t, opaqueKeyA, "orders", 5), formOf(t, opaqueKeyA, "orders", 9)} {
			if slices.Contains(forms, claimed) {
				t.Fatalf("%s: the claimed form %s was issued", name, claimed)
			}
		}
	}
	// The first value of a range may be the claimed one: the range starts after it.
	mustClaim(t, f, "", "orders/"+formOf(t, opaqueKeyA, "orders", 13))
	if r := mustIdentity(t, f, "orders", 1, ""); r.First != 14 || r.Last != 14 || len(r.Skipped) != 0 {
		t.Fatalf("orders| after a claimed form of 13 = %+v, want 14", r)
	}
}

// A claim of the form of a value the counter has passed is refused: that ID may be out.
func TestClaimOfAnIssuedFormIsRefused(t *testing.T) {
	f := New()
	mustMakeOpaque(t, f, &raftv1.MakeOpaque{Collections: []string{"orders"}, Key: opaqueKeyA})
	_, forms := issuedForms(t, f, "orders", 3)
	err := claimIDs(t, f, &raftv1.Claim{Ids: []string{"orders/" + strings.ToLower(forms[1])}})
	var conflict *ClaimConflict
	if !errors.As(err, &conflict) || !conflict.Identity {
		t.Fatalf("claim of the issued form %s = %v, want a ClaimConflict of an identity", forms[1], err)
	}
	// A form of a value not reached yet, and a form under another key (decrypting outside the
	// counter's range or above it), may be claimed.
	mustClaim(t, f, "", "orders/"+formOf(t, opaqueKeyA, "orders", 4), "orders/"+formOf(t, opaqueKeyB, "orders", 1))
}

// Releasing a claimed form lets its value be issued; the index of form-shaped claims follows
// claims and releases.
func TestReleasedFormIsIssued(t *testing.T) {
	f := New()
	mustMakeOpaque(t, f, &raftv1.MakeOpaque{Collections: []string{"orders"}, Key: opaqueKeyA})
	id := "orders/" + formOf(t, opaqueKeyA, "orders", 2)
	mustClaim(t, f, "", id)
	d := f.st.databases[DefaultDatabase]
	if len(d.formClaims["orders"]) != 1 || d.formNumbers["orders"] == nil {
		t.Fatalf("form-shaped claims under orders: %v, %v; want one, value 2", d.formClaims, d.formNumbers)
	}
	if res := mustApply(t, f, ReleaseCommand, &raftv1.Release{Ids: []string{id}}); res != (ReleaseResult{Released: 1}) {
		t.Fatalf("release answered %v", res)
	}
	if len(d.formClaims) != 0 || len(d.formNumbers) != 0 {
		t.Fatalf("a released form is still indexed: %v, %v", d.formClaims, d.formNumbers)
	}
	if r := mustIdentity(t, f, "orders", 3, ""); r.First != 1 || r.Last != 3 || len(r.Skipped) != 0 {
		t.Fatalf("orders| x3 after the release = %+v", r)
	}
}

// A database deleted and created again goes on skipping the forms its claims hold.
func TestRecreatedDatabaseSkipsClaimedForms(t *testing.T) {
	f := New()
	mustApply(t, f, CreateDatabaseCommand, &raftv1.CreateDatabase{Name: "shop"})
	mustMakeOpaque(t, f, &raftv1.MakeOpaque{Database: "shop", Collections: []string{"orders"}, Key: opaqueKeyA})
	if err := claimIDs(t, f, &raftv1.Claim{Database: "shop", Ids: []string{"orders/" + formOf(t, opaqueKeyA, "orders", 2)}}); err != nil {
		t.Fatal(err)
	}
	mustApply(t, f, DeleteDatabaseCommand, &raftv1.DeleteDatabase{Name: "shop", Force: true})
	mustApply(t, f, CreateDatabaseCommand, &raftv1.CreateDatabase{Name: "shop"})
	res := mustApply(t, f, IdentityBatchCommand, &raftv1.IdentityBatch{Increments: []*raftv1.IdentityIncrement{{Database: "shop", Name: "orders", Count: 3}}})
	if r := res.(IdentityBatchResult).Ranges[0]; r.First != 1 || r.Last != 4 || !slices.Equal(r.Skipped, []int64{2}) {
		t.Fatalf("orders| x3 in shop created again = %+v; want 1..4 without 2", r)
	}
}

// Last parts that are no form's: other lengths, symbols the encoder never writes.
func TestFormShaped(t *testing.T) {
	for key, want := range map[string]bool{
		"orders/0123456789abc":  true,
		"orders/0123456789ab":   false,
		"orders/0123456789abcd": false,
		"orders/0123456789abi":  false, // i, l, o and u read as other symbols, but no form has them
		"orders/0123456789abu":  false,
		"/0123456789abc":        false,
		"a/b/zzzzzzzzzzzzz":     true,
	} {
		if _, _, got := formShaped(key, "/"); got != want {
			t.Errorf("formShaped(%q) = %v, want %v", key, got, want)
		}
	}
}
