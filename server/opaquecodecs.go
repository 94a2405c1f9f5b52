package server

import (
	"math"
	"sync"
	"sync/atomic"

	"github.com/idnode/idnode/fsm"
	"github.com/idnode/idnode/opaque"
)

// maxOpaqueCodecs bounds the codecs a node keeps: far more than the opaque collections a
// cluster holds, and past it a codec is made for each call, as it is without the cache, so no
// caller can grow the map by the names it sends.
const maxOpaqueCodecs = 4096

// opaqueCodecs keeps the codec of each opaque collection a node has written or read forms of.
// Making one is AES's key schedule and the CBC-MAC of FF1's fixed block and the tweak: about
// 1.5 µs and 8 allocations, most of the form step of a call for one identity
// (BenchmarkIdentityForms), while a codec, safe for concurrent use, writes a form in about
// 0.7 µs. An entry is named by the key and the folded name together, so a codec is only ever
// used under the key it was made with: a database's key never changes once set, and if it
// could, the new key would name new entries.
type opaqueCodecs struct {
	codecs sync.Map // string(key) + "\x00" + folded name or numeric tweak → *opaque.Codec
	kept   atomic.Int64
}

// identity is the codec of collection's forms under setting's key, kept: FF1 tweaked by the
// collection's name as the state machine folds it, so every spelling of a name is one
// permutation.
func (c *opaqueCodecs) identity(setting fsm.OpaqueSetting, collection string) (*opaque.Codec, error) {
	name := setting.Fold(collection)
	return c.keep(setting.Key, name, func() (*opaque.Codec, error) { return opaque.NewIdentityCodec(setting.Key, name) })
}

// numeric is the codec of an opaque-numeric database's numeric IDs, kept: every value of an
// int64 in 13 symbols, tweaked by fsm.OpaqueNumericTweak, which is no collection's folded
// name, so it names an entry of its own.
func (c *opaqueCodecs) numeric(setting fsm.OpaqueSetting) (*opaque.Codec, error) {
	return c.keep(setting.Key, fsm.OpaqueNumericTweak, func() (*opaque.Codec, error) {
		return opaque.NewCodec(setting.Key, []byte(fsm.OpaqueNumericTweak), 0, math.MaxInt64)
	})
}

// keep returns the codec kept for key and tweak, or one newCodec makes, kept while the bound
// allows.
func (c *opaqueCodecs) keep(key []byte, tweak string, newCodec func() (*opaque.Codec, error)) (*opaque.Codec, error) {
	id := string(key) + "\x00" + tweak
	if kept, ok := c.codecs.Load(id); ok {
		return kept.(*opaque.Codec), nil
	}
	codec, err := newCodec()
	if err != nil {
		return nil, err
	}
	if c.kept.Add(1) <= maxOpaqueCodecs {
		if _, loaded := c.codecs.LoadOrStore(id, codec); loaded {
			c.kept.Add(-1) // another call kept one first; either serves
		}
	} else {
		c.kept.Add(-1)
	}
	return codec, nil
}
