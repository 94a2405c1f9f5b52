package fsm

import (
	"maps"
	"math"
	"sync"
	"sync/atomic"

	"github.com/idnode/idnode/opaque"
)

// The codecs of a database's forms: one for each opaque collection, one for its opaque numeric
// IDs. Making a codec is AES's key schedule and the CBC-MAC of FF1's fixed block and the tweak,
// about 1.5 µs and 8 allocations, twice the FF1 rounds of a form, so each is made once and
// kept, and the FSM's claims and the node's answers (package server) use the same kept codec.
// They are kept in the database's opaqueState, beside the key they were made with: a state
// that a snapshot install or a restore builds starts with none, and a database's key never
// changes within a state (MakeOpaque keeps the first; a restore with another is refused), so
// no codec can outlive its key. Only an opaque collection or opaque numeric IDs get one, so a
// database keeps at most MaxOpaqueCollections + 1, whatever names callers send.

// opaqueCodecs are one database's kept codecs, by tweak. Readers of the state (under the FSM's
// read lock, many at once) and Apply both make them, so a reader looks one up without a lock,
// in a map that is replaced, never changed, and makers take turns.
type opaqueCodecs struct {
	mu   sync.Mutex
	kept atomic.Pointer[map[string]*opaque.Codec]
}

// codec returns the codec kept for tweak, or makes it with newCodec and keeps it.
func (c *opaqueCodecs) codec(tweak string, newCodec func() (*opaque.Codec, error)) (*opaque.Codec, error) {
	if kept := c.kept.Load(); kept != nil {
		if codec := (*kept)[tweak]; codec != nil {
			return codec, nil
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var next map[string]*opaque.Codec
	if kept := c.kept.Load(); kept != nil {
		if codec := (*kept)[tweak]; codec != nil { // another maker was first
			return codec, nil
		}
		next = maps.Clone(*kept)
	} else {
		next = make(map[string]*opaque.Codec, 1)
	}
	codec, err := newCodec()
	if err != nil {
		return nil, err
	}
	next[tweak] = codec
	c.kept.Store(&next)
	return codec, nil
}

// opaqueCodec returns the codec of the identity counter key when it is an opaque collection of
// the database, nil when it is not.
func (d *database) opaqueCodec(key string) (*opaque.Codec, error) {
	o := d.opaque
	if o == nil || !o.has(key) {
		return nil, nil
	}
	return o.codecs.codec(key, func() (*opaque.Codec, error) { return opaque.NewIdentityCodec(o.key, key) })
}

// identityForms returns how the identity counter key's IDs are written when it is an opaque
// collection of the database, nil when it is not.
func (d *database) identityForms(key string) (*IdentityForms, error) {
	c, err := d.opaqueCodec(key)
	if c == nil || err != nil {
		return nil, err
	}
	return &IdentityForms{Codec: c, Key: d.opaque.key, Tweak: key}, nil
}

// opaqueNumericCodec returns the codec of the database's numeric IDs when they are opaque, nil
// when they are not.
func (d *database) opaqueNumericCodec() (*opaque.Codec, error) {
	if !d.opaqueNumeric() {
		return nil, nil
	}
	key := d.opaque.key
	return d.opaque.codecs.codec(opaqueNumericTweak, func() (*opaque.Codec, error) {
		return opaque.NewCodec(key, []byte(opaqueNumericTweak), 0, math.MaxInt64) // every int64 a minter can give
	})
}

// OpaqueIdentityCodec returns the codec of collection's forms in database: FF1 under the
// database's key, tweaked by the collection's name as the state folds it, so every spelling of
// a name gets the one permutation. It is nil when the collection is not opaque there, or the
// database does not exist. It errs only on a key that makes no codec, which the state never
// holds. The codec is the one the state keeps (see above), safe for concurrent use.
func (f *FSM) OpaqueIdentityCodec(database, collection string) (*opaque.Codec, error) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	if d, err := f.st.db(database); err == nil {
		return d.opaqueCodec(f.st.key(collection))
	}
	return nil, nil
}

// OpaqueNumericCodec returns the codec of database's numeric IDs: every value of an int64 in
// 13 symbols, tweaked by OpaqueNumericTweak, which is no collection's folded name. It is nil
// when the database's numeric IDs are not opaque, or the database does not exist, and errs as
// OpaqueIdentityCodec does.
func (f *FSM) OpaqueNumericCodec(database string) (*opaque.Codec, error) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	if d, err := f.st.db(database); err == nil {
		return d.opaqueNumericCodec()
	}
	return nil, nil
}
