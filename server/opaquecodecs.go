package server

import (
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
	codecs sync.Map // string(key) + "\x00" + folded name → *opaque.Codec
	kept   atomic.Int64
}

// identity is the codec of collection's forms under setting's key (identityCodec), kept.
func (c *opaqueCodecs) identity(setting fsm.OpaqueSetting, collection string) (*opaque.Codec, error) {
	name := setting.Fold(collection)
	id := string(setting.Key) + "\x00" + name
	if kept, ok := c.codecs.Load(id); ok {
		return kept.(*opaque.Codec), nil
	}
	codec, err := opaque.NewIdentityCodec(setting.Key, name)
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
