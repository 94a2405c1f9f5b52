package fsm

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/idnode/idnode/docid"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// Opaque collections (DESIGN.md, "Opaque collections"): an identity collection whose public
// IDs are FF1 forms of its counter values (package opaque) under a key of its database, and a
// database whose numeric IDs are too. The key is made by the leader, carried in the command
// and kept here, so every replica holds the same; it is never part of an answer to a client.

const (
	// OpaqueKeyLen is the length of a database's opaque key: an AES-256 key.
	OpaqueKeyLen = 32
	// OpaquePlainLimit is the identity counter value from which a collection can no longer
	// turn opaque: the next plain ID, 10^12, would have 13 digits, the length of a form
	// (opaque.IdentityLen), and a plain ID of 13 digits could equal a form.
	OpaquePlainLimit = 1_000_000_000_000 - 1
	// MaxOpaqueCollections bounds a database's opaque collections: every Generate reads them.
	MaxOpaqueCollections = 1024
	// opaqueNumericTweak is the tweak of a database's numeric forms. No collection name may
	// start with '#', so no collection's tweak is the same.
	opaqueNumericTweak = "#numeric"
)

// OpaqueNumericTweak is the tweak of an opaque-numeric database's forms.
const OpaqueNumericTweak = opaqueNumericTweak

// opaqueState is a database's opaque setting. It outlives a deletion of the database, as its
// counters do (DESIGN.md, "Opaque collections").
type opaqueState struct {
	key []byte
	// collections are the opaque identity collections, as state.key folds them, sorted. The
	// slice is replaced, never changed in place, so a captured snapshot record keeps its own.
	collections []string
	numeric     bool
	// codecs are the codecs of the collections' and numeric IDs' forms, made when first
	// needed (opaquecodecs.go).
	codecs opaqueCodecs
}

// has reports whether the folded collection key is opaque.
func (o *opaqueState) has(key string) bool {
	_, found := slices.BinarySearch(o.collections, key)
	return found
}

// opaqueHas reports whether the collection keyed key is opaque in d. d may be nil (a
// database the cluster lacks), which has no opaque collection.
func (d *database) opaqueHas(key string) bool {
	return d != nil && d.opaque != nil && d.opaque.has(key)
}

// opaqueNumeric reports whether d's numeric IDs are opaque; d may be nil.
func (d *database) opaqueNumeric() bool {
	return d != nil && d.opaque != nil && d.opaque.numeric
}

// opaqueCollections are d's opaque collections, folded and sorted; none when d is nil.
func (d *database) opaqueCollections() []string {
	if d == nil || d.opaque == nil {
		return nil
	}
	return d.opaque.collections
}

// checkNumericTurn refuses numeric IDs turning opaque in d, named name, once it has leased a
// worker: those holders minted plain IDs, which could equal forms. restore says the setting
// is a backup's. d may be nil.
func (d *database) checkNumericTurn(name string, numeric, restore bool) error {
	if numeric && !d.opaqueNumeric() && d != nil && d.workers != nil {
		return leasedNumericRefused(name, restore)
	}
	return nil
}

// OpaqueSetting is a database's opaque setting, as FSM.Opaque answers it: a copy.
type OpaqueSetting struct {
	// Key is the database's AES-256 key. Never send it to a client.
	Key []byte
	// Collections are the opaque identity collections, folded as the FSM folds names, sorted.
	// A collection's folded name is its forms' tweak.
	Collections []string
	// Numeric says whether the database's numeric IDs are opaque (tweak OpaqueNumericTweak).
	Numeric bool
	// fold is the state's fold when the setting was read, so Has folds as the FSM does.
	fold int32
}

// Has reports whether collection (an identity name, spelled as a caller spells it) is opaque.
func (s OpaqueSetting) Has(collection string) bool {
	_, found := slices.BinarySearch(s.Collections, foldWith(s.fold, collection))
	return found
}

// Fold returns collection's name as the FSM folds it: the tweak of its forms.
func (s OpaqueSetting) Fold(collection string) string {
	return foldWith(s.fold, collection)
}

// Fingerprint names the key without revealing it, so operators can compare two clusters'
// keys: the first 8 bytes of SHA-256("idnode opaque key fingerprint" || key), in hex.
func (s OpaqueSetting) Fingerprint() string {
	return OpaqueKeyFingerprint(s.Key)
}

// OpaqueKeyFingerprint is the fingerprint of an opaque key (OpaqueSetting.Fingerprint).
func OpaqueKeyFingerprint(key []byte) string {
	h := sha256.New()
	h.Write([]byte("idnode opaque key fingerprint"))
	h.Write(key)
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// Opaque returns database's opaque setting; false when the database does not exist, was
// deleted, or has neither an opaque collection nor opaque numeric IDs.
func (f *FSM) Opaque(database string) (OpaqueSetting, bool) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	d, err := f.st.db(database)
	if err != nil || d.opaque == nil || (len(d.opaque.collections) == 0 && !d.opaque.numeric) {
		return OpaqueSetting{}, false
	}
	return OpaqueSetting{Key: bytes.Clone(d.opaque.key), Collections: slices.Clone(d.opaque.collections), Numeric: d.opaque.numeric, fold: f.st.fold}, true
}

// applyMakeOpaque turns collections of a database opaque, and its numeric IDs when asked. It
// only adds, and checks everything before it changes anything. The first key a database gets
// wins; a later command's key is ignored, as a second cluster secret is, unless the command
// restores a backup, whose key must then be the one the database holds. The answer is the
// database's setting afterwards.
func (st *state) applyMakeOpaque(c *raftv1.MakeOpaque) any {
	if n := len(c.GetKey()); n != OpaqueKeyLen {
		return fmt.Errorf("%w: the key is %d bytes, an opaque key is %d", ErrInvalidOpaque, n, OpaqueKeyLen)
	}
	name := DatabaseName(c.GetDatabase())
	var d *database
	if c.GetRestore() {
		// A restore puts back a database the cluster lacks, as RaiseFloor does.
		if err := docid.ValidateDatabaseRef(c.GetDatabase()); err != nil {
			return err
		}
		d = st.databases[name]
	} else {
		var err error
		if d, err = st.db(name); err != nil {
			return err
		}
	}
	if d != nil && d.opaque != nil && c.GetRestore() && !bytes.Equal(d.opaque.key, c.GetKey()) {
		return fmt.Errorf("%w: database %q holds the key %s, the backup %s", ErrOpaqueKeyDiffers, name,
			OpaqueKeyFingerprint(d.opaque.key), OpaqueKeyFingerprint(c.GetKey()))
	}
	added, err := st.newOpaqueCollections(d, name, c.GetCollections())
	if err != nil {
		return err
	}
	if err := d.checkNumericTurn(name, c.GetNumeric(), c.GetRestore()); err != nil {
		return err
	}
	if d == nil {
		d = st.dbForFloors(name)
	}
	o := d.opaque
	if o == nil {
		o = &opaqueState{key: bytes.Clone(c.GetKey())}
		d.opaque = o
	}
	if len(added) > 0 {
		o.collections = slices.Sorted(slices.Values(append(slices.Clone(o.collections), added...)))
		for _, key := range added { // claims of their forms made while they were plain
			d.indexOpaqueCollection(key)
		}
	}
	o.numeric = o.numeric || c.GetNumeric()
	return OpaqueSetting{Key: bytes.Clone(o.key), Collections: slices.Clone(o.collections), Numeric: o.numeric, fold: st.fold}
}

// newOpaqueCollections checks the collections a command names and returns those not opaque
// in d yet, folded, each once. d may be nil (a restore of a database the cluster lacks).
func (st *state) newOpaqueCollections(d *database, database string, names []string) ([]string, error) {
	have := d.opaqueCollections()
	tooMany := func(n int) error {
		return fmt.Errorf("%w: database %q would have %d opaque collections, at most %d", ErrLimitReached, database, n, MaxOpaqueCollections)
	}
	if len(names) > MaxOpaqueCollections { // before any work a name costs
		return nil, tooMany(len(names))
	}
	var added []string
	for _, name := range names {
		if err := docid.ValidateName("collection", name); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalidOpaque, err)
		}
		if strings.HasPrefix(name, "#") {
			return nil, fmt.Errorf("%w: collection %q starts with '#', which names no collection", ErrInvalidOpaque, name)
		}
		// The folded name is the forms' tweak: a name that a later fold would key differently
		// would change its permutation, and new forms could take old ones'.
		key := st.key(name)
		if foldWith(foldLower, name) != foldWith(foldNFKC, name) {
			return nil, fmt.Errorf("%w: collection %q compares differently under the two folds of names (%q, %q); give it a name in which case alone varies",
				ErrInvalidOpaque, name, foldWith(foldLower, name), foldWith(foldNFKC, name))
		}
		if _, found := slices.BinarySearch(have, key); found || slices.Contains(added, key) {
			continue
		}
		if d != nil {
			if v := d.identities[key]; v >= OpaquePlainLimit {
				return nil, plainCounterRefused(name, database, v)
			}
		}
		if n := len(have) + len(added) + 1; n > MaxOpaqueCollections {
			return nil, tooMany(n)
		}
		added = append(added, key)
	}
	return added, nil
}

// opaqueRecord is the database's opaque setting as a snapshot record (nil: none). The record
// is the command that makes the setting, restore unset.
func (d *database) opaqueRecord(rec string) *raftv1.MakeOpaque {
	if d.opaque == nil {
		return nil
	}
	return &raftv1.MakeOpaque{Database: rec, Key: d.opaque.key, Collections: d.opaque.collections, Numeric: d.opaque.numeric}
}

// restoreOpaque puts a snapshot's opaque record back.
func (st *state) restoreOpaque(r *raftv1.MakeOpaque) error {
	if len(r.GetKey()) != OpaqueKeyLen {
		return fmt.Errorf("%w: database %q has a key of %d bytes", ErrInvalidOpaque, r.GetDatabase(), len(r.GetKey()))
	}
	collections := slices.Clone(r.GetCollections())
	if !slices.IsSorted(collections) || len(slices.Compact(slices.Clone(collections))) != len(collections) {
		return fmt.Errorf("%w: database %q's opaque collections are not sorted once each", ErrInvalidOpaque, r.GetDatabase())
	}
	st.dbForFloors(r.GetDatabase()).opaque = &opaqueState{key: bytes.Clone(r.GetKey()), collections: collections, numeric: r.GetNumeric()}
	return nil
}
