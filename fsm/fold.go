package fsm

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// Fold versions: how identity names and claimed IDs are compared (the key they are kept
// under). The version is replicated state: an entry must fold the same on every replica, and
// an old log replayed by a new build must fold as it did when it was written, so a state
// starts at foldLower and moves to foldNFKC only through a SetFold entry (fold.go,
// DESIGN.md "Folding").
const (
	// foldLower is Go's strings.ToLower, which every state from before SetFold uses. Under
	// it, users/ſam, users/ＳＡＭ and users/sam are three different IDs.
	foldLower int32 = 0
	// foldNFKC is NFKC, full Unicode case folding and NFKC again, applied after ToLower:
	// NFKC_Casefold without the removal of default-ignorable code points (docid refuses the
	// format characters among them). Applying it after ToLower makes it a function of the
	// old key, so moving a state to it can merge old keys but never split one (applySetFold).
	foldNFKC int32 = 1
)

// caseFold is full Unicode case folding (ß → ss, ſ → s, K (Kelvin) → k); it is stateless.
var caseFold = cases.Fold()

// foldKey folds with foldLower: database names (ASCII, where both folds agree) and HiLo tags,
// which no claim is compared with.
func foldKey(s string) string {
	return strings.ToLower(s)
}

// foldNFKCCasefold returns the key of s under foldNFKC. An ASCII name, which nearly every name
// is, only has its case lowered: NFKC and case folding change nothing else in ASCII, and the
// full transform costs ~1.4 µs and an allocation on every increment (26 ns and none this way).
func foldNFKCCasefold(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return norm.NFKC.String(caseFold.String(norm.NFKC.String(strings.ToLower(s))))
		}
	}
	return strings.ToLower(s)
}

// foldWith folds s by version.
func foldWith(version int32, s string) string {
	if version == foldNFKC {
		return foldNFKCCasefold(s)
	}
	return foldKey(s)
}

// key is the key of an identity name or a claimed ID under the state's fold.
func (st *state) key(s string) string {
	return foldWith(st.fold, s)
}

// separatorKey is the cluster's separator as it appears in folded keys ('／' is '/' under
// foldNFKC). docid refuses combining marks as separators, so folding "name<sep>N" gives
// key(name) + separatorKey() + N.
func (st *state) separatorKey() string {
	return st.key(st.separatorOf())
}

// FoldCollision refuses a SetFold under which two keys the state holds would become one: the
// state keeps its fold, and the two stay apart. It wraps ErrFoldCollision.
type FoldCollision struct {
	Database string
	What     string // "identity" or "claim"
	A, B     string // as first spelled
	Key      string // what both fold to
}

func (c *FoldCollision) Error() string {
	return fmt.Sprintf("%v: the %ss %q and %q of database %q would both be %q", ErrFoldCollision, c.What, c.A, c.B, c.Database, c.Key)
}

func (c *FoldCollision) Unwrap() error { return ErrFoldCollision }

// applySetFold moves the state to the fold version, re-keying every database's counters,
// their spellings and claims, and the request table's identity answers. A version the state
// has is a no-op; going back, or to a version this build does not know, is refused, and so is
// a move under which two keys would become one (FoldCollision): merging two counters or two
// owners' claims is a decision for an operator, not for a log entry. Each old key is folded
// from its first caller's spelling; since foldNFKC is a function of the foldLower key, every
// spelling that shared an old key shares the new one, so nothing splits.
func (st *state) applySetFold(f *raftv1.Fold) any {
	version := f.GetVersion()
	switch {
	case version == st.fold:
		return nil
	case version != foldNFKC || st.fold != foldLower:
		return fmt.Errorf("%w: from version %d to %d (this build moves from %d to %d only)", ErrUnknownFold, st.fold, version, foldLower, foldNFKC)
	}
	moved := make(map[string]*database, len(st.databases))
	for _, name := range sortedKeys(st.databases) {
		d, err := st.databases[name].refolded(name, version)
		if err != nil {
			return err
		}
		moved[name] = d
	}
	for name, d := range moved {
		*st.databases[name] = *d
	}
	for _, r := range st.requests.live() {
		if r.GetKind() == requestKindIdentity {
			r.Key = foldWith(version, r.GetKey())
		}
	}
	st.fold = version
	claimBook{st}.indexClaims()
	return nil
}

// refolded returns a copy of the database with its counters and claims keyed by fold version,
// or a FoldCollision. HiLo tags keep their keys (foldKey): no claim is compared with them.
func (d *database) refolded(name string, version int32) (*database, error) {
	out := *d
	out.identities = make(map[string]int64, len(d.identities))
	out.spellings = make(map[string]string)
	firstSpelling := make(map[string]string, len(d.identities))
	for _, old := range sortedKeys(d.identities) {
		spelling := d.identityName(old)
		key := foldWith(version, spelling)
		if other, taken := firstSpelling[key]; taken {
			return nil, &FoldCollision{Database: name, What: "identity", A: other, B: spelling, Key: key}
		}
		firstSpelling[key] = spelling
		out.setIdentity(key, spelling, d.identities[old])
	}
	out.claims = make(map[string]claim, len(d.claims))
	out.claimedNumbers = make(map[string]*claimedNumbers)
	out.formClaims, out.formNumbers = nil, nil // indexed again by indexClaims
	keys := sortedKeys(d.claims)
	for _, old := range keys {
		c := d.claims[old]
		key := foldWith(version, c.id)
		if other, taken := out.claims[key]; taken {
			return nil, &FoldCollision{Database: name, What: "claim", A: other.id, B: c.id, Key: key}
		}
		out.putClaim(key, c)
	}
	return &out, nil
}

// applyFoldRecord restores a snapshot's fold, written before every record keyed by it.
func (st *state) applyFoldRecord(f *raftv1.Fold) error {
	if v := f.GetVersion(); v != foldLower && v != foldNFKC {
		return fmt.Errorf("%w: the snapshot's fold version is %d", ErrUnknownFold, v)
	}
	st.fold = f.GetVersion()
	return nil
}

// foldRecords is the snapshot record of the state's fold: none for foldLower, so a state
// that never moved writes the bytes it wrote before folds had versions.
func (st *state) foldRecords() []snapshotRecord {
	if st.fold == foldLower {
		return nil
	}
	return []snapshotRecord{{typ: foldRecord, msg: &raftv1.Fold{Version: st.fold}}}
}

// FoldVersion is how the state compares identity names and claimed IDs: 0 lower case (a
// state from before SetFold existed that has not moved), 1 NFKC_Casefold (fold.go).
func (f *FSM) FoldVersion() int32 {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.st.fold
}

// FoldNFKC is the fold version the leader moves a state to (server: ensureFold).
const FoldNFKC = foldNFKC
