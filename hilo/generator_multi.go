package hilo

import (
	"context"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
)

// MultiGenerator hands out HiLo IDs for any number of tags (collections), with one Generator
// per tag created on first use. It is safe for any number of goroutines; looking up an existing
// tag takes no lock: the tags are an immutable map behind an atomic pointer, copied when a tag
// is added (rare next to lookups, and cheaper to read than a sync.Map).
type MultiGenerator struct {
	src  RangeSource
	opts []Option
	gens atomic.Pointer[map[string]*Generator]

	mu     sync.Mutex // serialises creation with Close
	closed bool
}

// NewMultiGenerator returns a multi-tag generator whose generators take ranges from src and
// are configured with opts.
func NewMultiGenerator(src RangeSource, opts ...Option) *MultiGenerator {
	return &MultiGenerator{src: src, opts: slices.Clone(opts)}
}

// Generator returns tag's generator, creating it on first use. After Close it returns
// ErrClosed.
func (m *MultiGenerator) Generator(tag string) (*Generator, error) {
	if gens := m.gens.Load(); gens != nil {
		if g, ok := (*gens)[tag]; ok {
			return g, nil
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, ErrClosed
	}
	var old map[string]*Generator
	if gens := m.gens.Load(); gens != nil {
		old = *gens
	}
	if g, ok := old[tag]; ok {
		return g, nil
	}
	g, err := NewGenerator(m.src, tag, m.opts...)
	if err != nil {
		return nil, err
	}
	gens := make(map[string]*Generator, len(old)+1)
	maps.Copy(gens, old)
	gens[tag] = g
	m.gens.Store(&gens)
	return g, nil
}

func (m *MultiGenerator) all() map[string]*Generator {
	if gens := m.gens.Load(); gens != nil {
		return *gens
	}
	return nil
}

// NextID returns the next ID of tag ("orders" → "orders/17-A").
func (m *MultiGenerator) NextID(ctx context.Context, tag string) (string, error) {
	g, err := m.Generator(tag)
	if err != nil {
		return "", err
	}
	return g.NextID(ctx)
}

// Tags lists the tags that have a generator, sorted.
func (m *MultiGenerator) Tags() []string {
	return slices.Sorted(maps.Keys(m.all()))
}

// Unreturned sums the generators' Stats.Unreturned: the numbers their Close held and did not
// give back.
func (m *MultiGenerator) Unreturned() int64 {
	var n int64
	for _, g := range m.all() {
		n += g.Stats().Unreturned
	}
	return n
}

// Close closes every generator (concurrently: each gives back its unused numbers, within its
// close timeout, and logs and counts what it could not: see Generator.Close) and refuses new
// tags. It returns nil, as Generator.Close does.
func (m *MultiGenerator) Close(ctx context.Context) error {
	m.mu.Lock()
	m.closed = true
	gens := slices.Collect(maps.Values(m.all()))
	m.mu.Unlock()

	var wg sync.WaitGroup
	for _, g := range gens {
		wg.Go(func() { _ = g.Close(ctx) }) // nil: a gap is logged and counted, not an error
	}
	wg.Wait()
	return nil
}
