package fsm

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/idnode/idnode/docid"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// claimIDs applies a Claim and returns its answer: nil, or the refusal.
func claimIDs(t *testing.T, f *FSM, c *raftv1.Claim) error {
	t.Helper()
	switch res := mustApply(t, f, ClaimCommand, c).(type) {
	case nil:
		return nil
	case error:
		return res
	default:
		t.Fatalf("Claim answered %#v", res)
		return nil
	}
}

func mustClaim(t *testing.T, f *FSM, owner string, ids ...string) {
	t.Helper()
	if err := claimIDs(t, f, &raftv1.Claim{Ids: ids, Owner: owner}); err != nil {
		t.Fatalf("claim %q: %v", ids, err)
	}
}

func claimedIDs(t *testing.T, f *FSM, db string) []string {
	t.Helper()
	page, _, err := f.ListClaims(db, "", "", 1000)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range page {
		ids = append(ids, c.ID)
	}
	return ids
}

// The book's scenario: claim products/1, and the identity products| answers products/2. A
// block of identities leaves claimed values out and says which.
func TestIdentitiesSkipClaimedValues(t *testing.T) {
	f := New()
	mustClaim(t, f, "", "products/1")
	if r := mustIdentity(t, f, "products", 1, ""); r.First != 2 || r.Last != 2 || len(r.Skipped) != 0 {
		t.Fatalf("products| after claiming products/1 = %+v, want 2", r)
	}
	mustClaim(t, f, "", "PRODUCTS/4", "Products/6", "products/9")
	want := IdentityRange{IdentityBlock: docid.IdentityBlock{First: 3, Last: 8, Skipped: []int64{4, 6}}}
	if r := mustIdentity(t, f, "Products", 4, ""); !reflect.DeepEqual(r, want) {
		t.Fatalf("4 identities of products = %+v, want %+v", r, want)
	}
	if r := mustIdentity(t, f, "products", 1, ""); r.First != 10 {
		t.Fatalf("next products| = %+v, want 10 (9 is claimed)", r)
	}
	// Only the identity format counts: no leading zero, no other prefix, no other separator.
	mustClaim(t, f, "", "products/011", "products/12x", "products-12", "product/12", "products/sub/13")
	if r := mustIdentity(t, f, "products", 3, ""); r.First != 11 || r.Last != 13 || len(r.Skipped) != 0 {
		t.Fatalf("products| past look-alike claims = %+v, want 11..13", r)
	}
	// Released before the counter gets there: not skipped any more.
	mustClaim(t, f, "", "products/15")
	mustApply(t, f, ReleaseCommand, &raftv1.Release{Ids: []string{"products/15"}})
	if r := mustIdentity(t, f, "products", 2, ""); r.First != 14 || r.Last != 15 || len(r.Skipped) != 0 {
		t.Fatalf("products| after the release of products/15 = %+v, want 14..15", r)
	}
}

func TestAClaimIsAllOrNothingAndCaseInsensitive(t *testing.T) {
	f := New()
	mustClaim(t, f, "alice", "users/Ayende")
	err := claimIDs(t, f, &raftv1.Claim{Ids: []string{"users/bob", "USERS/ayende"}, Owner: "bob"})
	var conflict *ClaimConflict
	if !errors.As(err, &conflict) || !errors.Is(err, ErrAlreadyClaimed) || conflict.ID != "users/Ayende" || conflict.Owner != "alice" {
		t.Fatalf("claiming USERS/ayende again = %v, want a conflict naming users/Ayende and alice", err)
	}
	if got := claimedIDs(t, f, ""); !slices.Equal(got, []string{"users/Ayende"}) {
		t.Fatalf("claims after the refused claim: %q (users/bob must not be claimed)", got)
	}
	// An identity handed out already cannot be claimed: the ID is somebody's.
	mustIdentity(t, f, "orders", 5, "")
	err = claimIDs(t, f, &raftv1.Claim{Ids: []string{"orders/6", "Orders/5"}})
	if !errors.As(err, &conflict) || !conflict.Identity || conflict.ID != "Orders/5" {
		t.Fatalf("claiming Orders/5 after the counter passed 5 = %v, want a conflict with the identity", err)
	}
	if r := mustIdentity(t, f, "orders", 1, ""); r.First != 6 {
		t.Fatalf("orders| after the refused claim = %+v, want 6 (orders/6 was not claimed)", r)
	}
	// The same ID twice in one claim is one claim.
	mustClaim(t, f, "", "x/a", "X/A")
	if got := claimedIDs(t, f, ""); !slices.Equal(got, []string{"users/Ayende", "x/a"}) {
		t.Fatalf("claims: %q", got)
	}
}

func TestClaimRequestIDs(t *testing.T) {
	f := New()
	c := &raftv1.Claim{Ids: []string{"users/ayende"}, Owner: "alice", RequestId: "r1"}
	if err := claimIDs(t, f, c); err != nil {
		t.Fatal(err)
	}
	if err := claimIDs(t, f, c); err != nil {
		t.Fatalf("a retry of the same claim = %v, want success", err)
	}
	other := &raftv1.Claim{Ids: []string{"users/oren"}, Owner: "alice", RequestId: "r1"}
	if err := claimIDs(t, f, other); !errors.Is(err, ErrRequestIDReused) {
		t.Fatalf("request id r1 for other IDs = %v, want ErrRequestIDReused", err)
	}
	if err := claimIDs(t, f, &raftv1.Claim{Ids: []string{"users/ayende"}, Owner: "alice"}); !errors.Is(err, ErrAlreadyClaimed) {
		t.Fatalf("the same claim without its request id = %v, want ErrAlreadyClaimed", err)
	}
	if err := claimIDs(t, f, &raftv1.Claim{}); !errors.Is(err, ErrInvalidCount) {
		t.Fatalf("a claim of nothing = %v", err)
	}
}

// A Release with a request_id answers its retry as the first attempt (the IDs are released by
// then, so a new attempt would count 0), refuses the id for other IDs or another owner, and
// keeps the cluster from a downgrade below the version that brought it.
func TestReleaseRequestIDs(t *testing.T) {
	f := New()
	mustClaim(t, f, "alice", "a/1", "a/2")
	r := &raftv1.Release{Ids: []string{"a/1", "a/2", "a/3"}, Owner: "alice", RequestId: "r1", ProposedAtMs: 1000}
	for _, attempt := range []string{"first", "retry"} {
		if res := mustApply(t, f, ReleaseCommand, r); res != (ReleaseResult{Released: 2}) {
			t.Fatalf("the %s attempt = %#v, want 2 released", attempt, res)
		}
	}
	if got := claimedIDs(t, f, ""); len(got) != 0 {
		t.Fatalf("claims after the release: %q", got)
	}
	for _, other := range []*raftv1.Release{
		{Ids: []string{"a/1"}, Owner: "alice", RequestId: "r1"},
		{Ids: []string{"a/1", "a/2", "a/3"}, Owner: "bob", RequestId: "r1"},
	} {
		if res := mustApply(t, f, ReleaseCommand, other); !errors.Is(res.(error), ErrRequestIDReused) {
			t.Fatalf("request id r1 for %v = %v, want ErrRequestIDReused", other, res)
		}
	}
	if res := mustApply(t, f, ReleaseCommand, &raftv1.Release{Ids: []string{"a/1", "a/2"}, Owner: "alice"}); res != (ReleaseResult{}) {
		t.Fatalf("the release again without its request id = %#v, want 0 released", res)
	}
	if used := f.ClusterVersion().Used; used != ReleaseRequestVersion {
		t.Fatalf("after a Release with a request_id the log has used version %d, want %d", used, ReleaseRequestVersion)
	}
	// A Release as builds before the version made it uses no newer version.
	g := New()
	mustApply(t, g, ReleaseCommand, &raftv1.Release{Ids: []string{"a/1"}})
	if used := g.ClusterVersion().Used; used >= ReleaseRequestVersion {
		t.Fatalf("after a Release without a request_id the log has used version %d", used)
	}
}

func TestRelease(t *testing.T) {
	f := New()
	mustClaim(t, f, "alice", "a/1", "a/2")
	mustClaim(t, f, "bob", "b/1")
	res := mustApply(t, f, ReleaseCommand, &raftv1.Release{Ids: []string{"a/1", "b/1"}, Owner: "alice"})
	if err, _ := res.(error); !errors.Is(err, ErrNotOwner) {
		t.Fatalf("alice releasing bob's b/1 = %v, want ErrNotOwner", res)
	}
	if got := claimedIDs(t, f, ""); len(got) != 3 {
		t.Fatalf("the refused release changed the claims: %q", got)
	}
	res = mustApply(t, f, ReleaseCommand, &raftv1.Release{Ids: []string{"A/1", "a/3"}, Owner: "alice"})
	if res != (ReleaseResult{Released: 1}) {
		t.Fatalf("release of A/1 and the unclaimed a/3 = %#v, want 1 released", res)
	}
	res = mustApply(t, f, ReleaseCommand, &raftv1.Release{Ids: []string{"b/1"}})
	if res != (ReleaseResult{Released: 1}) {
		t.Fatalf("release of b/1 naming no owner = %#v", res)
	}
	if got := claimedIDs(t, f, ""); !slices.Equal(got, []string{"a/2"}) {
		t.Fatalf("claims after the releases: %q", got)
	}
}

func TestClaimLimitAndDatabases(t *testing.T) {
	f := New()
	mustApply(t, f, CreateDatabaseCommand, &raftv1.CreateDatabase{Name: "small", MaxClaims: 2})
	if err := claimIDs(t, f, &raftv1.Claim{Database: "small", Ids: []string{"a", "b", "c"}}); !errors.Is(err, ErrLimitReached) {
		t.Fatalf("3 claims in a database of 2 = %v, want ErrLimitReached", err)
	}
	if err := claimIDs(t, f, &raftv1.Claim{Database: "small", Ids: []string{"a", "b"}}); err != nil {
		t.Fatal(err)
	}
	// Claims are per database: the default one has none of small's.
	mustClaim(t, f, "", "a")
	if got := claimedIDs(t, f, "small"); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("small's claims: %q", got)
	}
	if err, _ := mustApply(t, f, DeleteDatabaseCommand, &raftv1.DeleteDatabase{Name: "small"}).(error); !errors.Is(err, ErrDatabaseNotEmpty) {
		t.Fatalf("deleting a database with claims = %v, want ErrDatabaseNotEmpty", err)
	}
	for _, d := range f.Databases() {
		if d.Name == "small" && (d.Claims != 2 || d.MaxClaims != 2) || d.Name == DefaultDatabase && d.MaxClaims != DefaultMaxClaims {
			t.Errorf("database %+v", d)
		}
	}
	if err := claimIDs(t, f, &raftv1.Claim{Database: "nope", Ids: []string{"a"}}); !errors.Is(err, ErrDatabaseNotFound) {
		t.Fatalf("a claim in an unknown database = %v", err)
	}
}

// Identities that must skip claimed values up to the largest int64 are refused, not wrapped.
func TestSkippingPastTheLargestValueOverflows(t *testing.T) {
	f := New()
	mustSeed(t, f, "x", math.MaxInt64-2, false)
	mustClaim(t, f, "", "x/9223372036854775806", "x/9223372036854775807")
	if r := mustIdentity(t, f, "x", 1, ""); !errors.Is(r.Err, ErrCounterOverflow) {
		t.Fatalf("x| with the last two values claimed = %+v, want ErrCounterOverflow", r)
	}
}

// Claims survive a snapshot, byte for byte, and identities still skip them after a restore,
// with the cluster's separator (written after the claims in a snapshot).
func TestClaimsInSnapshotsAndBackups(t *testing.T) {
	f := New()
	r := registerCommand("A", "", "inc-A")
	r.Separator = "-"
	mustApply(t, f, RegisterNodeCommand, r)
	mustClaim(t, f, "alice", "Users-2", "users/3", "x")
	snap := snapshotBytes(t, f)
	g := mustRestore(t, snap)
	if !bytes.Equal(snapshotBytes(t, g), snap) {
		t.Fatal("a restored FSM with claims writes another snapshot")
	}
	if r := mustIdentity(t, g, "users", 2, ""); r.First != 1 || r.Last != 3 || !slices.Equal(r.Skipped, []int64{2}) {
		t.Fatalf("users| x2 after the restore = %+v, want 1 and 3 (users-2 claimed; users/3 is not the format with -)", r)
	}
	got, err := g.Claims("", []string{"USERS-2", "nobody"})
	if err != nil || len(got) != 1 || got[0].ID != "Users-2" || got[0].Owner != "alice" {
		t.Fatalf("Claims(USERS-2, nobody) = %+v, %v", got, err)
	}

	// A backup's claims come back in another cluster; one claimed there already keeps its owner.
	b := backupOf(t, f)
	if len(b.Claims) != 3 {
		t.Fatalf("backup claims: %+v", b.Claims)
	}
	h := New()
	mustClaim(t, h, "bob", "x")
	res, err := raiseFloor(t, h, b, 1)
	if err != nil || res.ClaimsRestored != 2 {
		t.Fatalf("restore: %+v, %v; want 2 claims restored", res, err)
	}
	if got, _ := h.Claims("", []string{"x", "users-2"}); len(got) != 2 || got[0].Owner != "bob" || got[1].Owner != "alice" {
		t.Fatalf("claims after the restore: %+v", got)
	}
}

// snapshotClaims decodes the claim records of a snapshot, in the order written, framing by
// hand: the type byte, the uvarint length, the ClaimRecord.
func snapshotClaims(t *testing.T, data []byte) []*raftv1.ClaimRecord {
	t.Helper()
	rest, ok := bytes.CutPrefix(data, []byte(snapshotMagic))
	if !ok {
		t.Fatal("no snapshot header")
	}
	var out []*raftv1.ClaimRecord
	for len(rest) > 0 {
		typ := recordType(rest[0])
		size, n := binary.Uvarint(rest[1:])
		if n <= 0 || uint64(len(rest)-1-n) < size {
			t.Fatalf("bad record framing at %d bytes from the end", len(rest))
		}
		body := rest[1+n : 1+n+int(size)]
		rest = rest[1+n+int(size):]
		if typ == claimRecord {
			r := &raftv1.ClaimRecord{}
			if err := proto.Unmarshal(body, r); err != nil {
				t.Fatal(err)
			}
			out = append(out, r)
		}
	}
	return out
}

// A snapshot writes one record per claim, database by database in name order, each one's
// claims in the order of their folded IDs, whatever order they were claimed in; and it writes
// the state of the moment it was taken, though the claims change before it is written (raft
// writes it in the background while the FSM goes on applying).
func TestClaimSnapshotsAreSortedAndOfTheirMoment(t *testing.T) {
	type claimAt struct{ db, id, owner string }
	claims := []claimAt{
		{"", "users/b", ""}, {"", "Users/A", "alice"}, {"", "users/C", ""}, {"", "orders/10", "bob"}, {"", "orders/9", ""},
		{"shop", "users/b", "carol"}, {"shop", "Carts/1", ""},
	}
	build := func(order []claimAt) *FSM {
		f := New()
		mustApply(t, f, CreateDatabaseCommand, &raftv1.CreateDatabase{Name: "shop"})
		for _, c := range order {
			if err := claimIDs(t, f, &raftv1.Claim{Database: c.db, Ids: []string{c.id}, Owner: c.owner}); err != nil {
				t.Fatalf("claim %+v: %v", c, err)
			}
		}
		return f
	}
	f := build(claims)
	reversed := slices.Clone(claims)
	slices.Reverse(reversed)
	data := snapshotBytes(t, f)
	if !bytes.Equal(snapshotBytes(t, build(reversed)), data) {
		t.Fatal("the same claims, claimed in another order, write another snapshot")
	}

	want := slices.Clone(claims)
	slices.SortFunc(want, func(a, b claimAt) int {
		if c := strings.Compare(recordName(DatabaseName(a.db)), recordName(DatabaseName(b.db))); c != 0 {
			return c
		}
		return strings.Compare(foldKey(a.id), foldKey(b.id))
	})
	var got []claimAt
	for _, r := range snapshotClaims(t, data) {
		got = append(got, claimAt{r.GetDatabase(), r.GetId(), r.GetOwner()})
	}
	if !slices.Equal(got, want) {
		t.Fatalf("claim records %+v, want %+v", got, want)
	}

	s, err := f.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	mustClaim(t, f, "dave", "users/d", "aaa/first")
	mustApply(t, f, ReleaseCommand, &raftv1.Release{Ids: []string{"users/b", "USERS/a"}})
	var later bytes.Buffer
	if err := s.(*snapshot).write(&later); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(later.Bytes(), data) {
		t.Fatal("a snapshot written after the claims changed is not the state it was taken of")
	}
}

// A snapshot's claims cost a few allocations in all, not some per claim (10⁶ claims made
// 2·10⁶ objects, ~280 MB, when each had a message of its own).
func TestClaimSnapshotAllocations(t *testing.T) {
	const n = 10_000
	f := New()
	ids := make([]string, 0, 1000)
	for i := range n {
		ids = append(ids, "users/x"+strconv.Itoa(i))
		if len(ids) == cap(ids) {
			mustClaim(t, f, "", ids...)
			ids = ids[:0]
		}
	}
	allocs := testing.AllocsPerRun(3, func() {
		s, err := f.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		if err := s.(*snapshot).write(io.Discard); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > n/100 {
		t.Errorf("a snapshot of %d claims made %.0f allocations, want a few, not one or more per claim", n, allocs)
	}
}

// Pages of claims walk every matching ID once, in order, whatever the page size.
func TestListClaimsPagesInOrder(t *testing.T) {
	f := New()
	var want []string
	for i := range 200 {
		id := fmt.Sprintf("p/%03d", (i*37)%200)
		mustClaim(t, f, "", id)
		want = append(want, id)
	}
	mustClaim(t, f, "", "q/1", "a/1")
	slices.Sort(want)
	for _, size := range []int{1, 7, 200, 1000} {
		var got []string
		after := ""
		for pages := 0; ; pages++ {
			page, more, err := f.ListClaims("", "P/", after, size)
			if err != nil || pages > 300 {
				t.Fatalf("page %d: %v", pages, err)
			}
			for _, c := range page {
				got = append(got, c.ID)
			}
			if !more {
				break
			}
			after = page[len(page)-1].ID
		}
		if !slices.Equal(got, want) {
			t.Fatalf("page size %d: %d IDs, first %q; want the %d p/ IDs in order", size, len(got), got[:min(3, len(got))], len(want))
		}
	}
}
