// Package rowkeys gives an application the primary keys of the rows it inserts, from an idnode
// cluster, a batch at a time: what an ORM adapter (contrib/gorm, contrib/ent) calls before an
// insert, and what a plain database/sql program calls itself. One Source per process shares
// the process's *client.Client, so its HiLo ranges, identities and numeric worker serve every
// table.
//
// Where keys come from (docs/decisions/0036-row-keys-by-field-type.md): a string key is a
// HiLo ID by default ("orders/17-A"), an integer key a HiLo number (17); Identity, ServerSide
// and Numeric name the other strategies.
package rowkeys

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/idnode/idnode/client"
	"github.com/idnode/idnode/hilo"
)

// Strategy names where a key comes from.
type Strategy string

// The strategies. A struct tag or an option names one by its string.
const (
	// HiLo (the default): "orders/17-A" for a string key, 17 for an integer one, from the
	// client's HiLo generator of the collection: no round trip per key.
	HiLo Strategy = "hilo"
	// Identity: "invoices/42" or 42, the collection's identity counter, through Raft: one call
	// per batch, consecutive but for values someone claimed.
	Identity Strategy = "identity"
	// ServerSide: "orders/0000000000000000001-A", a server-side ID (string keys only): one call
	// per batch, any node.
	ServerSide Strategy = "server"
	// Numeric: a 64-bit numeric ID (time | worker | sequence) minted in-process under a worker
	// leased from the cluster; a string key gets its decimal digits.
	Numeric Strategy = "numeric"
)

// ParseStrategy returns the strategy s names; "" is HiLo.
func ParseStrategy(s string) (Strategy, error) {
	switch st := Strategy(s); st {
	case "":
		return HiLo, nil
	case HiLo, Identity, ServerSide, Numeric:
		return st, nil
	}
	return "", fmt.Errorf("rowkeys: unknown strategy %q (want hilo, identity, server or numeric)", s)
}

// MaxBatch is the most keys one call hands out.
const MaxBatch = hilo.MaxBatch

// claimBatch is the most IDs one Claim call takes (the cluster's bound).
const claimBatch = 1000

var (
	// ErrNoIntegerServerSide: server-side IDs are strings; an integer key cannot hold one.
	ErrNoIntegerServerSide = errors.New("rowkeys: server-side IDs are strings; an integer key takes hilo, identity or numeric")
	// ErrClosed: the Source was closed.
	ErrClosed = errors.New("rowkeys: closed")
)

// Error is what a Source returns when it could not get or keep keys: the collection, what it
// did (a strategy's name, or "keep" for keys the application set) and the client's error (a
// gRPC status error carrying idnode's reason, client.ErrClosed, a *client.NodesFailedError …),
// which errors.Is, errors.As, status.Code and reason.Of see through to.
type Error struct {
	Collection string
	Op         string
	Err        error
}

func (e *Error) Error() string {
	if e.Op == opKeep {
		return fmt.Sprintf("idnode: keys set for %q: %v", e.Collection, e.Err)
	}
	return fmt.Sprintf("idnode: no %s keys for %q: %v", e.Op, e.Collection, e.Err)
}

// opKeep is Error.Op for keys the application set.
const opKeep = "keep"

func (e *Error) Unwrap() error { return e.Err }

// Source hands out keys from a cluster. It is safe for any number of goroutines.
type Source struct {
	c       *client.Client
	numOpts client.NumericOptions

	mu      sync.Mutex // guards numeric's creation and Close
	numeric *client.NumericGenerator
	closed  atomic.Bool
}

// Option configures a Source.
type Option func(*Source)

// WithNumericOptions configures the numeric generator the Numeric strategy starts on first use
// (its layout, lease and holder name).
func WithNumericOptions(o client.NumericOptions) Option {
	return func(s *Source) { s.numOpts = o }
}

// New returns a Source that takes keys through c. Closing the Source releases its numeric
// worker; closing c, which its owner does, returns the HiLo ranges' unused numbers.
func New(c *client.Client, opts ...Option) *Source {
	s := &Source{c: c}
	for _, o := range opts {
		o(s)
	}
	return s
}

// Client is the client the Source takes keys through.
func (s *Source) Client() *client.Client { return s.c }

// Strings returns n string keys of collection by strategy, in ascending order of issue.
func (s *Source) Strings(ctx context.Context, collection string, strategy Strategy, n int) ([]string, error) {
	if err := s.check(n); err != nil {
		return nil, err
	}
	var ids []string
	var err error
	switch strategy {
	case HiLo:
		ids, err = takeHiLo(ctx, s.c, collection, (*hilo.Generator).NextIDs, n)
	case Identity:
		ids, err = s.generate(ctx, collection+"|", n)
	case ServerSide:
		ids, err = s.generate(ctx, collection+"/", n)
	case Numeric:
		var nums []int64
		if nums, err = s.numerics(ctx, n); err == nil {
			ids = make([]string, n)
			for i, v := range nums {
				ids[i] = strconv.FormatInt(v, 10)
			}
		}
	default:
		_, err = ParseStrategy(string(strategy))
	}
	if err != nil {
		return nil, &Error{Collection: collection, Op: string(strategy), Err: err}
	}
	return ids, nil
}

// Ints returns n integer keys of collection by strategy (not ServerSide).
func (s *Source) Ints(ctx context.Context, collection string, strategy Strategy, n int) ([]int64, error) {
	if err := s.check(n); err != nil {
		return nil, err
	}
	var nums []int64
	var err error
	switch strategy {
	case HiLo:
		nums, err = takeHiLo(ctx, s.c, collection, (*hilo.Generator).NextNumbers, n)
	case Identity:
		nums, err = s.identities(ctx, collection, n)
	case Numeric:
		nums, err = s.numerics(ctx, n)
	case ServerSide:
		err = ErrNoIntegerServerSide
	default:
		_, err = ParseStrategy(string(strategy))
	}
	if err != nil {
		return nil, &Error{Collection: collection, Op: string(strategy), Err: err}
	}
	return nums, nil
}

// takeHiLo takes n keys of collection at once from c's generator of it, with take (NextIDs or
// NextNumbers), a range at a time rather than one by one. A generator closed with its client
// says so as the client's other calls do: the error is client.ErrClosed as well as
// hilo.ErrClosed.
func takeHiLo[T any](ctx context.Context, c *client.Client, collection string, take func(*hilo.Generator, context.Context, int) ([]T, error), n int) ([]T, error) {
	g, err := c.Generator(collection)
	if err != nil {
		return nil, err
	}
	keys, err := take(g, ctx, n)
	if errors.Is(err, hilo.ErrClosed) {
		return nil, fmt.Errorf("%w: %w", client.ErrClosed, err)
	}
	return keys, err
}

// check refuses a closed Source and a count out of bounds.
func (s *Source) check(n int) error {
	if s.closed.Load() {
		return ErrClosed
	}
	if n < 1 || n > MaxBatch {
		return fmt.Errorf("rowkeys: %d keys asked for: want 1…%d", n, MaxBatch)
	}
	return nil
}

// generate asks the cluster for n IDs of request ("orders|", "orders/") until it has them: an
// identity block ends early when it steps over many claimed values.
func (s *Source) generate(ctx context.Context, request string, n int) ([]string, error) {
	ids := make([]string, 0, n)
	for len(ids) < n {
		got, err := s.c.Generate(ctx, request, int64(n-len(ids)))
		if err != nil {
			return nil, err
		}
		if len(got) == 0 {
			return nil, fmt.Errorf("rowkeys: Generate(%q) answered no IDs", request)
		}
		ids = append(ids, got[:min(len(got), n-len(ids))]...)
	}
	return ids, nil
}

// identities reserves n values of the collection's identity counter, in as many blocks as the
// claims inside them take.
func (s *Source) identities(ctx context.Context, collection string, n int) ([]int64, error) {
	nums := make([]int64, 0, n)
	for len(nums) < n {
		block, err := s.c.NextIdentity(ctx, collection, int64(n-len(nums)))
		if err != nil {
			return nil, err
		}
		before := len(nums)
		for v := range block.All() {
			if len(nums) == n {
				break
			}
			nums = append(nums, v)
		}
		if len(nums) == before {
			return nil, fmt.Errorf("rowkeys: the identity %q answered an empty block", collection)
		}
	}
	return nums, nil
}

// numerics mints n numeric IDs, starting the numeric generator (leasing a worker) on first use.
func (s *Source) numerics(ctx context.Context, n int) ([]int64, error) {
	g, err := s.numericGenerator(ctx)
	if err != nil {
		return nil, err
	}
	nums := make([]int64, n)
	for i := range nums {
		if nums[i], err = g.Next(); err != nil {
			return nil, err
		}
	}
	return nums, nil
}

func (s *Source) numericGenerator(ctx context.Context) (*client.NumericGenerator, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed.Load() {
		return nil, ErrClosed
	}
	if s.numeric == nil {
		g, err := s.c.NewNumericGenerator(ctx, s.numOpts)
		if err != nil {
			return nil, err
		}
		s.numeric = g
	}
	return s.numeric, nil
}

// Keep checks keys the application set itself before they are inserted: string keys must be
// valid document IDs (INVALID_ARGUMENT otherwise), integer keys positive. With owner non-nil
// they are also claimed for *owner cluster-wide (ALREADY_EXISTS, reason CLAIMED, when someone
// holds one): a string key as it is, an integer key as "collection/N", which makes the
// collection's identity skip N.
func (s *Source) Keep(ctx context.Context, collection string, owner *string, strs []string, ints []int64) error {
	claims := make([]string, 0, len(strs)+len(ints))
	for _, id := range strs {
		if err := s.c.ValidateID(id); err != nil {
			return &Error{Collection: collection, Op: opKeep, Err: err}
		}
		claims = append(claims, id)
	}
	for _, v := range ints {
		if v < 1 {
			return &Error{Collection: collection, Op: opKeep, Err: fmt.Errorf("rowkeys: key %d of %q is not positive", v, collection)}
		}
		claims = append(claims, collection+"/"+strconv.FormatInt(v, 10))
	}
	if owner == nil {
		return nil
	}
	for len(claims) > 0 {
		batch := claims[:min(len(claims), claimBatch)]
		if err := s.c.Claim(ctx, *owner, batch...); err != nil {
			return &Error{Collection: collection, Op: opKeep, Err: err}
		}
		claims = claims[len(batch):]
	}
	return nil
}

// Close releases the numeric worker, if the Source leased one; keys are refused after. It does
// not close the client: its owner does, which gives back the HiLo ranges' unused numbers.
func (s *Source) Close(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed.Swap(true) {
		return nil
	}
	if s.numeric != nil {
		return s.numeric.Close(ctx)
	}
	return nil
}
