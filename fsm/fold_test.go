package fsm

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/idnode/idnode/docid"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

func setFold(t *testing.T, f *FSM, version int32) error {
	t.Helper()
	err, _ := mustApply(t, f, SetFoldCommand, &raftv1.Fold{Version: version}).(error)
	return err
}

func nfkcFSM(t *testing.T) *FSM {
	t.Helper()
	f := New()
	if err := setFold(t, f, FoldNFKC); err != nil {
		t.Fatal(err)
	}
	return f
}

// Claims compared with strings.ToLower, so users/sam, users/ſam (long s),
// users/ＳＡＭ (full width) were three owners. Under NFKC_Casefold they are one; the Cyrillic
// ѕ (U+0455) is a confusable, not a case or compatibility variant, and stays another ID.
func TestClaimsCompareUnderNFKCCasefold(t *testing.T) {
	f := nfkcFSM(t)
	mustClaim(t, f, "alice", "users/sam", "users/strasse", "users/kate")
	for _, lookalike := range []string{"users/ſam", "users/SAM", "users/ＳＡＭ", "Users／sam", "users/STRAẞE", "users/straße", "users/\u212Aate"} {
		var conflict *ClaimConflict
		if err := claimIDs(t, f, &raftv1.Claim{Ids: []string{lookalike}, Owner: "mallory"}); !errors.As(err, &conflict) || conflict.Owner != "alice" {
			t.Errorf("claim %q after alice's: %v, want alice's claim", lookalike, err)
		}
	}
	if err := claimIDs(t, f, &raftv1.Claim{Ids: []string{"users/ѕam"}, Owner: "bob"}); err != nil {
		t.Errorf("the Cyrillic users/ѕam: %v; it is a confusable, not the same ID under NFKC_Casefold", err)
	}
	got, err := f.Claims("", []string{"USERS/ſAM"})
	if err != nil || len(got) != 1 || got[0].ID != "users/sam" || got[0].Owner != "alice" {
		t.Errorf("Claims(USERS/ſAM) = %+v, %v", got, err)
	}
}

// Counters fold as claims do, so a claim and an identity of look-alike prefixes meet: a
// full-width claim makes the identity skip the value, and a claim of a value a look-alike
// counter handed out is refused.
func TestIdentitiesAndClaimsFoldAlike(t *testing.T) {
	f := nfkcFSM(t)
	mustClaim(t, f, "", "ＰＲＯＤＵＣＴＳ／１")
	if r := mustIdentity(t, f, "products", 1, ""); r.First != 2 || r.Last != 2 {
		t.Fatalf("products| after a claim of ＰＲＯＤＵＣＴＳ／１ = %+v, want 2", r)
	}
	mustIdentity(t, f, "ſkus", 3, "")
	var conflict *ClaimConflict
	if err := claimIDs(t, f, &raftv1.Claim{Ids: []string{"SKUS/2"}}); !errors.As(err, &conflict) || !conflict.Identity {
		t.Fatalf("claim SKUS/2 after ſkus| ×3: %v, want an identity conflict", err)
	}
	if r := mustIdentity(t, f, "SKUS", 1, ""); r.First != 4 {
		t.Fatalf("SKUS| after ſkus| ×3 = %+v, want 4 (one counter)", r)
	}
}

// A state from before folds had versions moves to NFKC_Casefold without splitting a counter:
// Go's ToLower made İstanbul and istanbul one counter; full case folding alone would make
// İstanbul "i̇stanbul" and start it again at 1, repeating İstanbul/1.
func TestSetFoldNeverSplitsACounter(t *testing.T) {
	f := New()
	mustIdentity(t, f, "İstanbul", 3, "r1")
	mustIdentity(t, f, "istanbul", 1, "")
	mustClaim(t, f, "x", "Ünïcode/9")
	if err := setFold(t, f, FoldNFKC); err != nil {
		t.Fatal(err)
	}
	if r := mustIdentity(t, f, "İstanbul", 1, ""); r.First != 5 {
		t.Fatalf("İstanbul| after the move = %+v, want 5", r)
	}
	if r := mustIdentity(t, f, "istanbul", 1, ""); r.First != 6 {
		t.Fatalf("istanbul| after the move = %+v, want 6 (the same counter)", r)
	}
	if r := mustIdentity(t, f, "İstanbul", 3, "r1"); r.First != 1 || r.Last != 3 {
		t.Fatalf("a retry from before the move = %+v, want its answer 1–3", r)
	}
	if r := mustIdentity(t, f, "ünïcode", 9, ""); r.First != 1 || r.Last != 10 || len(r.Skipped) != 1 {
		t.Fatalf("ünïcode| ×9 past the claim Ünïcode/9 = %+v", r)
	}
	if f.FoldVersion() != FoldNFKC || setFold(t, f, FoldNFKC) != nil {
		t.Fatal("the move is not idempotent")
	}
	if err := setFold(t, f, 0); !errors.Is(err, ErrUnknownFold) {
		t.Fatalf("moving back: %v, want ErrUnknownFold", err)
	}
	if err := setFold(t, f, 7); !errors.Is(err, ErrUnknownFold) {
		t.Fatalf("an unknown version: %v, want ErrUnknownFold", err)
	}
}

// Two counters or two claims that would become one refuse the move: the state keeps its fold
// and every key, byte for byte, on every replica.
func TestSetFoldRefusesToMerge(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, f *FSM)
	}{
		{"identities", func(t *testing.T, f *FSM) { mustIdentity(t, f, "sam", 1, ""); mustIdentity(t, f, "ſam", 2, "") }},
		{"claims", func(t *testing.T, f *FSM) { mustClaim(t, f, "a", "users/sam"); mustClaim(t, f, "b", "users/ＳＡＭ") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := New()
			tc.setup(t, f)
			before := snapshotBytes(t, f)
			var collision *FoldCollision
			if err := setFold(t, f, FoldNFKC); !errors.As(err, &collision) || !errors.Is(err, ErrFoldCollision) {
				t.Fatalf("SetFold = %v, want a FoldCollision", err)
			}
			if f.FoldVersion() != 0 || !bytes.Equal(snapshotBytes(t, f), before) {
				t.Fatal("a refused move changed the state")
			}
		})
	}
}

// A snapshot of a moved state says so first, and restores to the same bytes; a state that
// never moved writes no fold record, the bytes of before.
func TestFoldInSnapshots(t *testing.T) {
	legacy := New()
	mustIdentity(t, legacy, "Users", 1, "")
	f := nfkcFSM(t)
	mustIdentity(t, f, "Users", 1, "")
	mustClaim(t, f, "o", "ＳＫＵ/3")
	legacyBytes, data := snapshotBytes(t, legacy), snapshotBytes(t, f)
	if bytes.Equal(legacyBytes, data) || !bytes.HasPrefix(data[len(snapshotMagic):], []byte{byte(foldRecord)}) {
		t.Fatal("the moved state's snapshot does not start with its fold")
	}
	restored := mustRestore(t, data)
	if restored.FoldVersion() != FoldNFKC || !bytes.Equal(snapshotBytes(t, restored), data) {
		t.Fatal("restore lost the fold")
	}
	if r := mustIdentity(t, restored, "ｓｋｕ", 3, ""); r.First != 1 || r.Last != 4 || len(r.Skipped) != 1 {
		t.Fatalf("ｓｋｕ| ×3 after restore = %+v, want 1–4 skipping the claim", r)
	}
	if mustRestore(t, legacyBytes).FoldVersion() != 0 {
		t.Fatal("a snapshot without a fold record restored as moved")
	}
}

// FuzzFoldKeepsIdentityFormat: for every identity name and separator docid accepts, the key of
// the identity ID "name<sep>N" reads back, under either fold, as the counter key of name and N.
// Claims rely on it: a claim counts against its counter by the prefix of its key.
func FuzzFoldKeepsIdentityFormat(f *testing.F) {
	for _, name := range []string{"users", "İstanbul", "ſam", "ＰＲＯＤＵＣＴＳ", "x/１", "a..", "e\u0301", "ß"} {
		for _, sep := range []rune{'/', '-', '／', '…', '\u309b', ':'} {
			f.Add(name, sep, uint64(5))
		}
	}
	f.Fuzz(func(t *testing.T, name string, sep rune, n uint64) {
		if docid.ValidateName("identity name", name) != nil || !utf8.ValidRune(sep) || n == 0 || n > math.MaxInt64 {
			return
		}
		if _, err := docid.ParseSeparator(string(sep)); err != nil {
			return
		}
		id := docid.IdentityID(name, sep, int64(n))
		for _, version := range []int32{foldLower, foldNFKC} {
			prefix, got, ok := identityNumber(foldWith(version, id), foldWith(version, string(sep)))
			if want := foldWith(version, name); !ok || prefix != want || got != int64(n) {
				t.Fatalf("fold %d of %q (separator %q): prefix %q, number %d, %v; want %q, %d", version, id, sep, prefix, got, ok, want, n)
			}
		}
	})
}

// Backups of a moved state, whole or of one database, carry the fold first and read back.
func TestBackupsOfAMovedState(t *testing.T) {
	f := nfkcFSM(t)
	mustClaim(t, f, "o", "ＳＫＵ/3")
	mustIdentity(t, f, "ſkus", 2, "")
	for _, write := range []func(*bytes.Buffer) error{
		func(b *bytes.Buffer) error { return f.WriteBackup(b, IssueRates{}) },
		func(b *bytes.Buffer) error { return f.WriteDatabaseBackup(b, "", IssueRates{}) },
	} {
		var buf bytes.Buffer
		if err := write(&buf); err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(buf.Bytes()[len(snapshotMagic):], []byte{byte(foldRecord)}) {
			t.Fatal("a backup of a moved state does not start with its fold")
		}
		b, err := ReadBackup(&buf)
		if err != nil || len(b.Claims) != 1 || b.Claims[0].ID != "ＳＫＵ/3" || len(b.Identities) != 1 || b.Identities[0].Value != 2 {
			t.Fatalf("ReadBackup = %+v, %v", b, err)
		}
	}
}

// The ASCII path of foldNFKCCasefold is the full transform's answer for every ASCII character.
func TestFoldASCIIPathIsTheFullFold(t *testing.T) {
	for c := 0; c < utf8.RuneSelf; c++ {
		s := "Ab" + string(rune(c)) + "Z/9"
		full := norm.NFKC.String(caseFold.String(norm.NFKC.String(strings.ToLower(s))))
		if got := foldNFKCCasefold(s); got != full {
			t.Errorf("%q folds to %q, the full transform to %q", s, got, full)
		}
	}
}
