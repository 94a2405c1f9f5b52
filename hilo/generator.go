package hilo

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/docid"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/reason"
)

// RangeSource reserves and returns HiLo ranges: the two IdService calls a generator needs. The
// Go client (package client) implements it with retries across nodes; tests use an in-memory
// one. Both methods must honour ctx: Close waits for a fetch in flight until its ctx ends.
// ReturnHiLo reports whether the numbers went back (ReturnHiLoResponse.returned).
type RangeSource interface {
	NextHiLo(ctx context.Context, req *idnodev1.NextHiLoRequest) (*idnodev1.NextHiLoResponse, error)
	ReturnHiLo(ctx context.Context, req *idnodev1.ReturnHiLoRequest) (bool, error)
}

// ErrClosed is returned by NextID after Close.
var ErrClosed = errors.New("hilo: generator is closed")

// Defaults of the generator options.
const (
	DefaultFetchTimeout = 30 * time.Second
	DefaultPrefetchAt   = 0.8
	DefaultCloseTimeout = 2 * time.Second
)

type config struct {
	fetchTimeout time.Duration
	closeTimeout time.Duration
	prefetchAt   float64
	separator    string
	log          *slog.Logger
	// The legacy formats (legacy.go).
	withoutNodeTag  bool
	serverPrefix    string
	hasServerPrefix bool
}

// Option configures a Generator (and every generator of a MultiGenerator).
type Option func(*config)

// WithFetchTimeout bounds one range fetch, all the source's retries included (default 30 s).
// Fetches run in the background, detached from the callers' contexts; a caller waiting for
// one still stops waiting when its own context ends.
func WithFetchTimeout(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.fetchTimeout = d
		}
	}
}

// WithCloseTimeout bounds Close (default 2 s), its wait for a fetch in flight and its returns
// included, also when the context given to Close has a later deadline or none: a cluster
// that does not answer must not hold up a process that is stopping. What Close could not give
// back in that time is a gap (Stats.Unreturned).
func WithCloseTimeout(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.closeTimeout = d
		}
	}
}

// WithLogger sets where Close logs the numbers it could not give back (default
// slog.Default()): one line per range, never one per ID.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) {
		if l != nil {
			c.log = l
		}
	}
}

// WithPrefetchAt sets how much of the current range is handed out, at the latest, before the
// next one is fetched in the background: a fraction in (0, 1], default 0.8. The fetch starts
// earlier when the measured rate and fetch time say that the range would otherwise run out
// before the next one lands (pace.go).
func WithPrefetchAt(fraction float64) Option {
	return func(c *config) {
		if fraction > 0 && fraction <= 1 {
			c.prefetchAt = fraction
		}
	}
}

// WithSeparator asks the server for a prefix with this separator instead of the cluster's
// (NextHiLoRequest.separator). Empty means the cluster's. NewGenerator checks the tag (and a
// server prefix) against it, or against '/' when it is empty: on a cluster with another
// separator, give it here (or to the client: client.WithSeparator) so that the checks use it.
func WithSeparator(sep string) Option {
	return func(c *config) { c.separator = sep }
}

// span is one reserved range [low, high] that callers take numbers from. Everything but used is
// immutable once the span is published; used sits on a cache line of its own so that the
// increments of many cores do not keep invalidating the fields every caller reads.
type span struct {
	_    [64]byte
	used atomic.Int64 // numbers taken; taker k (1-based) gets low+k-1 when k <= size
	_    [56]byte

	low, high, size int64
	trigger         int64  // the taker of this number starts the prefetch of the next range at the latest
	checkMask       int64  // the takers of k with k&checkMask == 0 measure the rate (pace.go)
	prefix          string // "orders/" ("orders/NorthServer/" with a server prefix)
	suffix          string // "-A" ("" without the node tag)
	grant           string // NextHiLoResponse.grant_id: what a return of the range presents

	// tmpl is prefix + width digit placeholders + suffix; every n >= wide has exactly width
	// digits (all of the range, unless it crosses a power of ten) and is printed into a copy.
	tmpl  string
	width int
	wide  int64
}

func newSpan(low, high int64, prefix, suffix string) *span {
	s := &span{low: low, high: high, size: high - low + 1, prefix: prefix, suffix: suffix}
	s.width = decimalWidth(high)
	s.wide = 1
	for range s.width - 1 {
		s.wide *= 10
	}
	s.tmpl = prefix + strings.Repeat("0", s.width) + suffix
	return s
}

// decimalWidth is the number of decimal digits of n > 0.
func decimalWidth(n int64) int {
	w := 1
	for n >= 10 {
		n /= 10
		w++
	}
	return w
}

const digitPairs = "00010203040506070809101112131415161718192021222324252627282930313233343536373839" +
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879" +
	"8081828384858687888990919293949596979899"

// format prints prefix + n + suffix with one allocation and one copy: the template is copied
// (string → []byte copies without zeroing first) and the digits are written into it, two at a
// time from the end; the bytes then become the string without another copy.
func (s *span) format(n int64) string {
	if n < s.wide {
		return s.formatSlow(n)
	}
	b := []byte(s.tmpl)
	i := len(s.prefix) + s.width
	u := uint64(n)
	for u >= 100 {
		q := u / 100
		r := (u - q*100) * 2
		i -= 2
		b[i], b[i+1] = digitPairs[r], digitPairs[r+1]
		u = q
	}
	if u >= 10 {
		r := u * 2
		b[i-2], b[i-1] = digitPairs[r], digitPairs[r+1]
	} else {
		b[i-1] = byte('0' + u)
	}
	return unsafe.String(unsafe.SliceData(b), len(b)) // b is never written again
}

// formatSlow handles numbers narrower than the range's widest (a range across a power of ten).
func (s *span) formatSlow(n int64) string {
	var digits [20]byte
	num := strconv.AppendInt(digits[:0], n, 10)
	b := make([]byte, len(s.prefix)+len(num)+len(s.suffix))
	i := copy(b, s.prefix)
	i += copy(b[i:], num)
	copy(b[i:], s.suffix)
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// fetch is one NextHiLo call in flight; done is closed when err (and the generator's state) are
// final.
type fetch struct {
	seq       uint64
	done      chan struct{}
	err       error
	waitedOn  bool      // a caller waited for it (g.mu)
	startedAt time.Time // for the pace's fetch time
	// refusals keeps the most telling refusal of the fetch's attempts so far (the source
	// notes them, as the Go client does), for a caller that stops waiting before the fetch ends.
	refusals reason.Record
}

// Stats counts what a generator did.
type Stats struct {
	Fetches   int64 // ranges received
	Failures  int64 // fetches that failed
	Waits     int64 // NextID calls that had to wait for a fetch (the first calls always do)
	Stalls    int64 // fetches that callers had to wait for: the range ran out before it came
	RangeSize int64 // size of the newest range
	Returned  bool  // Close gave unused numbers back
	// Unreturned counts the numbers Close held and did not give back: a return that failed
	// (no node answered in time) or that the cluster declined (another range of the tag came
	// since). They are a gap in the tag's numbers, which HiLo allows.
	Unreturned int64
}

// Generator prints HiLo IDs for one tag. It is safe for any number of goroutines and never
// returns the same ID twice: every number comes from an atomic increment within a range that
// the cluster reserved for this generator alone. It fetches the next range in the background
// (one fetch per generator at a time) when the current one would run out within two fetch
// times at the rate callers take IDs, and at 80% of the range at the latest, so callers
// normally never wait for the network, also while their rate grows.
type Generator struct {
	cur atomic.Pointer[span] // the range callers take from; nil before the first fetch
	_   [56]byte

	src    RangeSource
	tag    string
	cfg    config
	ctx    context.Context // cancelled by Close: stops a fetch in flight
	cancel context.CancelFunc

	now func() time.Time // time.Now; tests set a fake clock
	// afterFetch, when set (tests), runs after a fetch's outcome was installed.
	afterFetch func()
	// beforeWait, when set (tests), runs when a caller is about to wait for a fetch.
	beforeWait func()

	mu       sync.Mutex
	closed   bool
	next     *span  // fetched, not yet current
	inflight *fetch // nil when no fetch runs
	fetchSeq uint64
	pending  *idnodev1.NextHiLoRequest // a request whose outcome is unknown: retried with its request_id
	// lastSize, lastAt and lastMax describe the newest range: its size, the time its answer
	// gave, and its highest number. The next request sends them, so that the server can size
	// the next range and start it above lastMax when it can.
	lastSize, lastAt, lastMax int64
	pace                      pace
	stats                     Stats
}

// NewGenerator returns a generator of IDs for tag ("orders" → "orders/1-A", …). It fetches
// nothing until the first NextID. A tag the server would refuse (blank, ending with the
// separator, see docid.ValidateHiLoTag) is refused here, before any call.
func NewGenerator(src RangeSource, tag string, opts ...Option) (*Generator, error) {
	if src == nil {
		return nil, errors.New("hilo: NewGenerator needs a RangeSource")
	}
	cfg := config{fetchTimeout: DefaultFetchTimeout, closeTimeout: DefaultCloseTimeout, prefetchAt: DefaultPrefetchAt, log: slog.Default()}
	for _, o := range opts {
		o(&cfg)
	}
	sep := docid.DefaultSeparator
	if cfg.separator != "" {
		var err error
		if sep, err = docid.ParseSeparator(cfg.separator); err != nil {
			return nil, err
		}
	}
	if err := docid.ValidateHiLoTag(tag, sep); err != nil {
		return nil, err
	}
	if err := cfg.checkFormat(tag, sep); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Generator{src: src, tag: tag, cfg: cfg, ctx: ctx, cancel: cancel, now: time.Now}, nil
}

// Tag is the HiLo tag this generator prints IDs for.
func (g *Generator) Tag() string { return g.tag }

// NextID returns the next ID, such as "orders/17-A". It waits for the network only when the
// current range is used up before the next one arrived (and on the very first call); ctx bounds
// that wait. After Close it returns ErrClosed.
func (g *Generator) NextID(ctx context.Context) (string, error) {
	s, n, err := g.take(ctx)
	if err != nil {
		return "", err
	}
	return s.format(n), nil
}

// AppendNextID is NextID without the string: it appends the next ID to dst and returns the
// extended slice, allocating nothing when dst has room (e.g. to write IDs straight into a
// buffer being encoded).
func (g *Generator) AppendNextID(ctx context.Context, dst []byte) ([]byte, error) {
	s, n, err := g.take(ctx)
	if err != nil {
		return dst, err
	}
	dst = append(dst, s.prefix...)
	dst = strconv.AppendInt(dst, n, 10)
	return append(dst, s.suffix...), nil
}

// take hands out the next number and the range it belongs to.
func (g *Generator) take(ctx context.Context) (*span, int64, error) {
	s, first, _, err := g.takeUpTo(ctx, 1)
	return s, first, err
}

// takeUpTo hands out up to want > 0 consecutive numbers, first…first+got-1, all from one range
// s: as many as the current range has left, at least one. The fast path is one atomic add; the
// takers whose numbers include a check point of the range (pace.go) or its prefetch trigger
// check whether the prefetch is due.
func (g *Generator) takeUpTo(ctx context.Context, want int64) (s *span, first, got int64, err error) {
	var since uint64 // fetches from seq since on were started after this call began waiting
	waited := false
	for {
		s := g.cur.Load()
		if s != nil {
			// At most a range's size per add, so that concurrent adds past the end of a
			// range cannot overflow used, however many numbers callers ask for.
			n := min(want, s.size)
			if k := s.used.Add(n); k-n < s.size {
				from, to := k-n, min(k, s.size) // this caller's numbers are from+1…to of s
				if to&^s.checkMask != from&^s.checkMask || (from < s.trigger && s.trigger <= to) {
					g.checkPace(s, to)
				}
				return s, s.low + from, to - from, nil
			}
		}
		if err := g.slow(ctx, s, &since, &waited); err != nil {
			return nil, 0, 0, err
		}
	}
}

// checkPace runs for the taker of number k of s: it measures the rate, and starts fetching the
// range after s when s would run out too soon at that rate, or k is s's trigger, unless a
// fetch runs or a range is held already. After starting one it yields once, so that the new
// fetch goroutine (next in this P's queue) gets on the network now rather than after this busy
// caller's time slice: with many callers the range can otherwise run out first.
func (g *Generator) checkPace(s *span, k int64) {
	g.mu.Lock()
	due := g.pace.check(s, k, g.now()) || k == s.trigger
	started := false
	if due && !g.closed && g.next == nil && g.inflight == nil && g.cur.Load() == s {
		g.startFetchLocked()
		started = true
	}
	g.mu.Unlock()
	if started {
		runtime.Gosched()
	}
}

// slow runs when s (the current range, possibly nil) had no number left: it moves to the
// prefetched range, or waits for the fetch in flight (starting one if none is). It returns
// nil when the caller should try again.
func (g *Generator) slow(ctx context.Context, s *span, since *uint64, waited *bool) error {
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return ErrClosed
	}
	if g.cur.Load() != s {
		g.mu.Unlock()
		return nil // someone moved on already
	}
	if g.next != nil {
		next := g.next
		g.next = nil
		g.makeCurrentLocked(next)
		g.mu.Unlock()
		return nil
	}
	if *since == 0 {
		*since = g.fetchSeq + 1
	}
	f := g.inflight
	if f == nil {
		f = g.startFetchLocked()
	}
	if !*waited {
		*waited = true
		g.stats.Waits++
	}
	if !f.waitedOn {
		f.waitedOn = true
		g.stats.Stalls++
	}
	hook := g.beforeWait
	g.mu.Unlock()
	if hook != nil {
		hook()
	}

	select {
	case <-f.done:
	case <-ctx.Done():
		// The code is the caller's context's (DEADLINE_EXCEEDED), the reason the refusal that
		// kept the range from coming in time.
		return fmt.Errorf("hilo: waiting for a range for %q: %w", g.tag, reason.Ended(ctx.Err(), f.refusals.Err()))
	}
	if f.err != nil && f.seq >= *since {
		// A fetch that started after this call arrived failed: report it. (One that began
		// earlier, e.g. a prefetch, gets one more try on this caller's behalf.)
		return fmt.Errorf("hilo: fetching a range for %q: %w", g.tag, f.err)
	}
	return nil
}

// makeCurrentLocked hands s to the callers, and starts fetching the range after it at once
// when s will not last two fetch times at the rate the range before it was used. g.mu must be
// held, and no fetch may be in flight.
func (g *Generator) makeCurrentLocked(s *span) {
	g.cur.Store(s)
	if g.pace.begin(s, g.now()) {
		g.startFetchLocked()
	}
}

// startFetchLocked starts a NextHiLo call in the background. g.mu must be held.
func (g *Generator) startFetchLocked() *fetch {
	g.fetchSeq++
	f := &fetch{seq: g.fetchSeq, done: make(chan struct{}), startedAt: g.now()}
	g.inflight = f
	req := g.pending
	if req == nil {
		req = &idnodev1.NextHiLoRequest{
			Tag: g.tag, LastBatchSize: g.lastSize, LastRangeAt: g.lastAt, LastMax: g.lastMax,
			Separator: g.cfg.separator, RequestId: "hilo-" + rand.Text(),
		}
		g.pending = req
	}
	go g.runFetch(f, req)
	return f
}

// runFetch does one fetch and installs its outcome.
func (g *Generator) runFetch(f *fetch, req *idnodev1.NextHiLoRequest) {
	ctx, cancel := context.WithTimeout(reason.WithRecord(g.ctx, &f.refusals), g.cfg.fetchTimeout)
	resp, err := g.src.NextHiLo(ctx, req)
	cancel()

	g.mu.Lock()
	g.inflight = nil // before installing: a range made current may start the next fetch
	var s *span
	if err == nil {
		s, err = g.newSpan(resp)
	}
	if err != nil {
		g.stats.Failures++
		if definite(err) {
			g.pending = nil // the server refused it: nothing was reserved under this request_id
		}
	} else {
		g.pending = nil
		g.stats.Fetches++
		g.stats.RangeSize = s.size
		g.lastSize, g.lastAt, g.lastMax = s.size, resp.GetLastRangeAt(), s.high
		g.pace.fetched(g.now().Sub(f.startedAt))
		// Take it into use at once when the current range is gone (or there is none);
		// otherwise it waits as the next one. After Close it is kept for Close to return.
		if cur := g.cur.Load(); !g.closed && (cur == nil || cur.used.Load() >= cur.size) {
			g.makeCurrentLocked(s)
		} else {
			g.next = s
		}
	}
	f.err = err
	close(f.done)
	hook := g.afterFetch
	g.mu.Unlock()
	if hook != nil {
		hook()
	}
}

// definite reports whether err means the request was refused (so a new request_id is due),
// rather than that its outcome is unknown.
func definite(err error) bool {
	switch status.Code(err) {
	case codes.InvalidArgument, codes.FailedPrecondition, codes.OutOfRange, codes.PermissionDenied,
		codes.Unauthenticated, codes.Unimplemented:
		return true
	}
	return false
}

// newSpan checks an answer and prepares it for callers. g.mu must be held.
func (g *Generator) newSpan(resp *idnodev1.NextHiLoResponse) (*span, error) {
	low, high := resp.GetLow(), resp.GetHigh()
	switch {
	case low < 1 || high < low:
		return nil, fmt.Errorf("hilo: source answered %q with an empty or invalid range [%d, %d]", g.tag, low, high)
	case low <= g.lastMax && high > g.lastMax-g.lastSize:
		// Ranges of one tag never overlap. A range may lie below the previous one (a node cut
		// off from the majority grants from its pool below last_max), never on it: refuse
		// rather than risk printing a number twice.
		return nil, fmt.Errorf("hilo: source answered %q with [%d, %d], overlapping the previous range [%d, %d]", g.tag, low, high, g.lastMax-g.lastSize+1, g.lastMax)
	case resp.GetPrefix() == "" || resp.GetServerTag() == "":
		return nil, fmt.Errorf("hilo: source answered %q without a prefix or server tag: %v", g.tag, resp)
	}
	prefix, suffix := g.cfg.idParts(resp)
	s := newSpan(low, high, prefix, suffix)
	s.grant = resp.GetGrantId()
	s.trigger = min(max(int64(float64(s.size)*g.cfg.prefetchAt), 1), s.size)
	s.checkMask = checkMask(s.size)
	return s, nil
}

// Close stops the generator and gives every number it did not hand out back to the cluster
// (ReturnHiLo), so that the tag's next range starts right after the last number handed out. It
// waits for a fetch in flight (until ctx ends, then cancels it). After Close, NextID returns
// ErrClosed.
//
// The cluster takes a range back only from the client it granted it to, once, and only while
// it is the newest range of its tag (or the one right below a newest range of the same client
// that came back whole). So Close gives back the range it prefetched, whole, then the unused
// tail of the current range, when the prefetched one starts right after it: both come back,
// and the next range starts after the last ID handed out. What it cannot give back stays a gap,
// which HiLo allows: a tail when another client got a range of the tag since, or when the
// prefetched range does not start right after the current one (another client's range lies
// between), a range whose fetch ctx cut short, and what no node took back before ctx ended or
// the close timeout (WithCloseTimeout) passed. Close counts those numbers (Stats.Unreturned)
// and logs the ones a failed return left; it returns nil. Close is idempotent.
func (g *Generator) Close(ctx context.Context) error {
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return nil
	}
	g.closed = true
	cur := g.cur.Load()
	var used int64
	if cur != nil {
		// Seal the range: every later increment lands past its end. What was taken before
		// is exactly what was handed out.
		used = min(cur.used.Swap(cur.size), cur.size)
	}
	f := g.inflight
	g.mu.Unlock()

	ctx, cancel := context.WithTimeout(ctx, g.cfg.closeTimeout)
	defer cancel()
	if f != nil {
		select {
		case <-f.done:
		case <-ctx.Done():
			g.cancel() // a range it reserved anyway is left unused: a gap
			<-f.done
		}
	}
	g.cancel()

	g.mu.Lock()
	next := g.next
	g.next = nil
	g.mu.Unlock()
	// Newest first: the current range's tail can come back only once the prefetched range,
	// right above it, did. When the two are not adjacent (HiLo pools: each node grants from
	// its own pool, and the prefetch may have gone to another node), the tail is its own
	// pool's newest grant and may come back though the prefetched range did not; the cluster
	// judges each return, so asking costs a call, never a number.
	var returns []*idnodev1.ReturnHiLoRequest
	if next != nil {
		returns = append(returns, g.returnOf(next, next.low-1))
	}
	if cur != nil && used < cur.size {
		returns = append(returns, g.returnOf(cur, cur.low+used-1))
	}
	var returned, unreturned int64
	for i, req := range returns {
		ok, err := g.src.ReturnHiLo(ctx, req)
		if ok {
			returned++
			continue
		}
		unreturned += req.GetEnd() - req.GetLast()
		if err != nil {
			g.cfg.log.Warn("hilo: numbers not given back on close are a gap", "tag", g.tag,
				"first", req.GetLast()+1, "last", req.GetEnd(), "error", err)
		}
		if err == nil && i == 0 && len(returns) == 2 && next.low == cur.high+1 {
			// A newer range of the tag stays right above: the tail below it cannot come back.
			unreturned += returns[1].GetEnd() - returns[1].GetLast()
			break
		}
	}
	g.mu.Lock()
	g.stats.Returned = g.stats.Returned || returned > 0
	g.stats.Unreturned += unreturned
	g.mu.Unlock()
	return nil
}

// returnOf returns the request that gives back the numbers of s above last.
func (g *Generator) returnOf(s *span, last int64) *idnodev1.ReturnHiLoRequest {
	return &idnodev1.ReturnHiLoRequest{Tag: g.tag, End: s.high, Last: last, GrantId: s.grant}
}

// Stats returns what the generator did so far.
func (g *Generator) Stats() Stats {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.stats
}
