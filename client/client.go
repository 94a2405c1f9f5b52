// Package client is the Go client of idnode: typed calls for every IdService RPC with failover
// across the nodes it was given, HiLo IDs from per-collection generators (NextID), and the
// entity conventions of AssignID.
//
//	c, err := client.Dial(ctx, []string{"10.0.0.1:7070", "10.0.0.2:7070", "10.0.0.3:7070"})
//	if err != nil { … }
//	defer c.Close(ctx)              // returns the unused tails of the HiLo ranges
//	id, err := c.NextID(ctx, "orders") // "orders/1-A"
//
// Every call that fails with UNAVAILABLE (no leader, no quorum, node down, connection lost) or
// whose attempt ran past the per-attempt timeout is tried again on the next node at once, and
// once every node has failed it, again from the first after an exponential backoff with
// jitter, until it succeeds or ctx ends. Calls that reserve values (identities, HiLo ranges)
// carry a request_id that stays the same across those retries, so a retry never burns values.
// A node shedding load refuses RESOURCE_EXHAUSTED, reason NODE_BUSY: the calls that are safe
// to repeat (those with a request_id, the reads, and Generate) go on to the next node the same
// way; the others (seeds, returns, releases, cluster changes) come back with the refusal.
// Other errors come back unchanged as gRPC status errors: use status.Code(err). When no node
// served a call, its error (NodesFailedError) carries the most telling refusal the nodes sent,
// with DEADLINE_EXCEEDED as its code when the caller's deadline ended the call. Close is
// bounded (WithCloseTimeout) and logs, rather than returns, what it could not give back.
//
// The calls that run the cluster or manage what it holds are on parts reached from the Client,
// which share its connections: c.Admin() (status, members, backups, cluster version),
// c.Series() (fiscal series), c.Databases() (databases and API keys) and c.Workers() (worker
// leases); the Client itself keeps the data path.
//
// A client told its region and its nodes' (WithRegion) sends the calls any node answers to a
// node of its own region first, and the other nodes of its region come before those of other
// regions (region.go).
package client

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"math"
	mrand "math/rand/v2"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/docid"
	"github.com/idnode/idnode/hilo"
	"github.com/idnode/idnode/internal/flowcontrol"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/reason"
)

var (
	// ErrClosed is returned by calls on a Client after Close.
	ErrClosed = errors.New("idnode client: closed")

	// ErrMarginNotApplied is returned by a Restore with a margin (RestoreAhead) whose answer
	// shows another margin, or none: a node on the way runs a build without restore margins, so
	// the counters were set to the backup's values only. Upgrade it and restore again with the
	// margin; a restore only raises, so repeating it is safe.
	ErrMarginNotApplied = errors.New("idnode client: the restore did not apply the margin asked (a node on the way runs an older build): " +
		"the counters are at the backup's values only; upgrade it, then restore again with the margin")

	// ErrNotOpaqueForm is returned by ParseOpaqueID for a string that is not the opaque form of
	// an ID of the collection it names, and by ParseOpaqueNumericID for one that is not the
	// form of a numeric ID; the error says which part is wrong.
	ErrNotOpaqueForm = errors.New("idnode client: not an opaque ID's form")
)

// Backoff is the wait between two rounds of attempts of one call, a round being one attempt on
// each node: Initial before the second round, times Multiplier for each further one, at most
// Max, each spread by ±Jitter (a fraction) so that many clients do not retry in step. Within a
// round the next node is tried at once: one node failing says nothing about the others.
// MaxAttempts > 0 caps the attempts of one call (over all rounds); 0 means "until the call's
// context ends" — give calls a deadline.
type Backoff struct {
	Initial     time.Duration
	Max         time.Duration
	Multiplier  float64
	Jitter      float64
	MaxAttempts int
}

// DefaultBackoff waits 25 ms before the second round and doubles the wait each round up to
// 1 s, spreading each wait by ±20%, with no cap on the attempts. After a leader dies,
// the survivors notice and elect another within about 0.35–0.75 s (a call that reaches one
// meanwhile waits there for the election); the rounds, 200 or 400 ms apart by then, ask again
// soon after (a call caught in it waited 0.5–0.9 s on a loaded loopback cluster,
// docs/BENCHMARKS.md).
var DefaultBackoff = Backoff{Initial: 25 * time.Millisecond, Max: time.Second, Multiplier: 2, Jitter: 0.2}

// DefaultCallTimeout bounds one attempt on one node. A follower forwarding to a leader that
// stopped answering gives up after 1.5 s itself; a node that is frozen says nothing at all.
const DefaultCallTimeout = 3 * time.Second

type options struct {
	creds          credentials.TransportCredentials
	callTimeout    time.Duration
	backoff        Backoff
	dialOpts       []grpc.DialOption
	separator      rune
	collectionName func(reflect.Type) string
	genOpts        []hilo.Option
	inOrder        bool
	bearer         bool // WithAdminToken or WithAPIKey was given
	tracerProvider trace.TracerProvider
	region         string            // WithRegion: the client's region ("" for none)
	nodeRegions    map[string]string // WithRegion: address → region
	database       string            // WithDatabase: the database ("" for "default")
	closeTimeout   time.Duration     // WithCloseTimeout: the bound on Close
	log            *slog.Logger      // WithLogger
}

// Option configures Dial.
type Option func(*options) error

// WithTransportCredentials sets the connections' credentials, e.g.
// credentials.NewTLS(&tls.Config{…}). The default is plaintext (insecure.NewCredentials()).
func WithTransportCredentials(creds credentials.TransportCredentials) Option {
	return func(o *options) error {
		if creds == nil {
			return errors.New("WithTransportCredentials(nil)")
		}
		o.creds = creds
		return nil
	}
}

// WithCallTimeout bounds each attempt of a call on one node (default 3 s); when it passes, the
// next node is tried. With 0 or less, only the call's context bounds an attempt.
func WithCallTimeout(d time.Duration) Option {
	return func(o *options) error {
		o.callTimeout = d
		return nil
	}
}

// WithCloseTimeout bounds Close, and the Close of the Client's generators (HiLo and numeric),
// to d (default 2 s), also when the context given to Close has a later deadline or none: a
// process that is stopping is not held up by a cluster that does not answer. What could not go
// back in that time (HiLo numbers, a worker lease) is a gap Close logs and counts (a HiLo
// generator's Stats().Unreturned), not an error.
func WithCloseTimeout(d time.Duration) Option {
	return func(o *options) error {
		if d <= 0 {
			return fmt.Errorf("WithCloseTimeout(%v): the bound must be positive", d)
		}
		o.closeTimeout = d
		return nil
	}
}

// WithLogger sets the logger of what the Client does in the background that the caller does
// not see as an error: the HiLo numbers and worker leases a Close could not give back. The
// default is slog.Default().
func WithLogger(l *slog.Logger) Option {
	return func(o *options) error {
		if l == nil {
			return errors.New("WithLogger(nil)")
		}
		o.log = l
		return nil
	}
}

// WithBackoff sets the wait between attempts (see Backoff); zero fields take DefaultBackoff's.
func WithBackoff(b Backoff) Option {
	return func(o *options) error {
		if b.Initial < 0 || b.Max < 0 || b.Multiplier < 0 || b.Jitter < 0 || b.Jitter > 1 || b.MaxAttempts < 0 {
			return fmt.Errorf("WithBackoff(%+v): negative value or jitter above 1", b)
		}
		d := DefaultBackoff
		if b.Initial > 0 {
			d.Initial = b.Initial
		}
		if b.Max > 0 {
			d.Max = b.Max
		}
		if b.Multiplier >= 1 {
			d.Multiplier = b.Multiplier
		}
		if b.Jitter > 0 {
			d.Jitter = b.Jitter
		}
		d.MaxAttempts = b.MaxAttempts
		d.Max = max(d.Max, d.Initial)
		o.backoff = d
		return nil
	}
}

// WithDialOptions adds gRPC dial options, applied after the client's own (credentials and a
// reconnect backoff of at most 2 s), so they can override them.
func WithDialOptions(opts ...grpc.DialOption) Option {
	return func(o *options) error {
		o.dialOpts = append(o.dialOpts, opts...)
		return nil
	}
}

// WithNodesInOrder makes every call start at the first address given to Dial, and fail over
// in the order given, instead of starting at a random node (which spreads many clients over
// the cluster). It suits an operator's tool, whose first address is the node the operator
// means.
// As always, the node that answered a call is where the next one starts.
func WithNodesInOrder() Option {
	return func(o *options) error {
		o.inOrder = true
		return nil
	}
}

// WithSeparator tells the client the cluster's separator (default '/'): AssignID knows which
// IDs are requests for a server-side ID, and the HiLo generators check tags against it and ask
// for it (hilo.WithSeparator; a later WithGeneratorOptions may name another).
func WithSeparator(sep rune) Option {
	return func(o *options) error {
		if _, err := docid.ParseSeparator(string(sep)); err != nil {
			return err
		}
		o.separator = sep
		o.genOpts = append(o.genOpts, hilo.WithSeparator(string(sep)))
		return nil
	}
}

// WithGeneratorOptions configures the HiLo generators behind NextID, e.g. RavenDB 3.x's ID
// formats: hilo.WithoutNodeTag() ("orders/1") and hilo.WithServerPrefix("NorthServer")
// ("orders/NorthServer/1-A").
func WithGeneratorOptions(opts ...hilo.Option) Option {
	return func(o *options) error {
		o.genOpts = append(o.genOpts, opts...)
		return nil
	}
}

type node struct {
	addr    string
	conn    *grpc.ClientConn
	ids     idnodev1.IdServiceClient
	cluster idnodev1.ClusterServiceClient
	series  idnodev1.SeriesServiceClient
}

// The service clients of a node, for unaryCall.
func idsOf(n *node) idnodev1.IdServiceClient          { return n.ids }
func clusterOf(n *node) idnodev1.ClusterServiceClient { return n.cluster }
func seriesOf(n *node) idnodev1.SeriesServiceClient   { return n.series }

// unaryRPC is a unary RPC as its generated client's method expression, such as
// idnodev1.SeriesServiceClient.Issue.
type unaryRPC[Svc, Req, Resp any] func(Svc, context.Context, Req, ...grpc.CallOption) (Resp, error)

// unaryCall makes rpc with req through via (c.call: any node; c.callLeader: the leader
// first; their Repeatable forms for calls safe to repeat), on each node it tries through that
// node's client of the service (svc), and returns the answer of the attempt that succeeded.
func unaryCall[Svc, Req, Resp any](ctx context.Context, via func(context.Context, func(context.Context, *node) error) error,
	svc func(*node) Svc, rpc unaryRPC[Svc, Req, Resp], req Req) (Resp, error) {
	var resp Resp
	err := via(ctx, func(ctx context.Context, n *node) (err error) {
		resp, err = rpc(svc(n), ctx, req)
		return err
	})
	return resp, err
}

// Client talks to an idnode cluster through any subset of its nodes. It is safe for any
// number of goroutines.
type Client struct {
	failover
	opts      options
	gens      *hilo.MultiGenerator
	fold      *identityFold // concurrent single identities (fold.go)
	grants    grantNodes    // which node granted each recent HiLo range (grants.go)
	closeOnce sync.Once
	closeErr  error
}

// failover is how a call reaches the cluster: the client's nodes, which of them answered last
// and which one leads, and the attempts of one call on one node after another, with backoff.
type failover struct {
	nodes       []*node
	callTimeout time.Duration
	backoff     Backoff
	regions     *regionOrder // the order of the nodes with WithRegion (region.go); nil without
	preferred   atomic.Int64 // without a region: index of the node that answered last; calls start there
	leader      atomic.Int64 // 1 + index of the node last named as leader (leader.go); 0: unknown
	// failedAt is, by node index, when the node last failed an attempt by itself (UnixNano; 0
	// once it answers): a hint naming it as leader is not believed for a while (leader.go).
	failedAt []atomic.Int64
	now      func() time.Time
	closed   atomic.Bool
	// sleep is the wait of a backoff, sleepCtx but in tests, which set it to learn when the
	// client backs off without waiting on the clock.
	sleep func(ctx context.Context, d time.Duration) error
}

// Dial returns a client for the nodes at addrs (host:port, or any gRPC target), one
// connection per address. Connections are made in the background: Dial does not wait for them
// and fails only for bad arguments. ctx is not kept.
func Dial(ctx context.Context, addrs []string, opts ...Option) (*Client, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(addrs) == 0 {
		return nil, errors.New("idnode client: Dial needs at least one node address")
	}
	o := options{
		creds: insecure.NewCredentials(), callTimeout: DefaultCallTimeout, backoff: DefaultBackoff,
		separator: docid.DefaultSeparator, collectionName: DefaultCollectionName,
		closeTimeout: hilo.DefaultCloseTimeout, log: slog.Default(),
	}
	for _, opt := range opts {
		if err := opt(&o); err != nil {
			return nil, fmt.Errorf("idnode client: %w", err)
		}
	}
	// The generators close within the Client's bound and log where it does, unless
	// WithGeneratorOptions says otherwise.
	o.genOpts = append([]hilo.Option{hilo.WithCloseTimeout(o.closeTimeout), hilo.WithLogger(o.log)}, o.genOpts...)
	var regions *regionOrder
	if o.region != "" {
		var err error
		if regions, err = newRegionOrder(o.region, o.nodeRegions, addrs, o.inOrder); err != nil {
			return nil, fmt.Errorf("idnode client: %w", err)
		}
	}
	dialOpts := append([]grpc.DialOption{
		grpc.WithTransportCredentials(o.creds),
		// gRPC's default reconnect backoff grows to two minutes; a node that was restarted
		// should be used again within a couple of seconds.
		grpc.WithConnectParams(grpc.ConnectParams{
			Backoff:           backoff.Config{BaseDelay: 50 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: 2 * time.Second},
			MinConnectTimeout: 2 * time.Second,
		}),
	}, flowcontrol.DialOptions()...)
	tracing := newClientTracing(o.tracerProvider)
	if tracing != nil {
		dialOpts = append(dialOpts, tracing.dial)
	}
	dialOpts = append(dialOpts, o.dialOpts...)
	c := &Client{opts: o, failover: failover{callTimeout: o.callTimeout, backoff: o.backoff, regions: regions, sleep: sleepCtx,
		failedAt: make([]atomic.Int64, len(addrs)), now: time.Now}}
	dialOpts = append(dialOpts, grpc.WithChainUnaryInterceptor(c.learnLeader))
	for _, addr := range addrs {
		if strings.TrimSpace(addr) == "" {
			c.closeConns()
			return nil, errors.New("idnode client: empty node address")
		}
		conn, err := grpc.NewClient(addr, dialOpts...)
		if err != nil {
			c.closeConns()
			return nil, fmt.Errorf("idnode client: node %s: %w", addr, err)
		}
		conn.Connect()
		c.nodes = append(c.nodes, &node{addr: addr, conn: conn,
			ids: idnodev1.NewIdServiceClient(conn), cluster: idnodev1.NewClusterServiceClient(conn),
			series: idnodev1.NewSeriesServiceClient(conn)})
	}
	if !o.inOrder {
		c.preferred.Store(mrand.Int64N(int64(len(c.nodes)))) // spread clients over the nodes
	}
	c.gens = hilo.NewMultiGenerator(c, o.genOpts...)
	c.fold = newIdentityFold(func(ctx context.Context, name string, count int64, requestID string) (docid.IdentityBlock, error) {
		return c.NextIdentityRaw(ctx, &idnodev1.NextIdentityRequest{Name: name, Count: count, RequestId: requestID})
	})
	if tracing != nil {
		c.fold.tracer = tracing.tracer
	}
	return c, nil
}

// indexOf is n's index among the Client's nodes.
func (fo *failover) indexOf(n *node) int64 {
	for i, m := range fo.nodes {
		if m == n {
			return int64(i)
		}
	}
	return 0
}

func (fo *failover) closeConns() error {
	var errs []error
	for _, n := range fo.nodes {
		if err := n.conn.Close(); err != nil {
			errs = append(errs, fmt.Errorf("node %s: %w", n.addr, err))
		}
	}
	return errors.Join(errs...)
}

// Addrs returns the node addresses the client was dialed with.
func (c *Client) Addrs() []string {
	out := make([]string, len(c.nodes))
	for i, n := range c.nodes {
		out[i] = n.addr
	}
	return out
}

// Close gives back the HiLo numbers its generators did not hand out (ReturnHiLo: each
// generator's prefetched range and current tail, as far as the cluster takes them back, see
// hilo.Generator.Close), then closes the connections. It returns within ctx and the close
// timeout (WithCloseTimeout, 2 s by default), whichever ends first, also when no node answers:
// the numbers it could not give back are a gap, logged (WithLogger) and counted (each
// generator's Stats().Unreturned, see Generator), not an error. Calls after Close fail with
// ErrClosed; Close again returns the first result.
func (c *Client) Close(ctx context.Context) error {
	c.closeOnce.Do(func() {
		ctx, cancel := context.WithTimeout(ctx, c.opts.closeTimeout)
		defer cancel()
		_ = c.gens.Close(ctx) // nil: what could not go back is logged and counted (Stats.Unreturned)
		c.closed.Store(true)
		c.closeErr = c.closeConns()
	})
	return c.closeErr
}

// NodesFailedError is what a call returns when no node answered it: every attempt failed with
// a retryable error until the context ended or the attempts ran out. Last is the most telling
// of the attempts' errors: the last refusal a node sent (it carries a reason: NO_QUORUM,
// NOT_CAUGHT_UP, STORAGE_FULL, …), or the last attempt's error when no node sent one (all of
// them down or silent), so a live node's refusal is not hidden by a dead node tried after it.
// Cause is why the client stopped trying: ctx.Err(), or nil when MaxAttempts ran out.
//
// Its gRPC status (status.Code, reason.Of) is Last's, with the code DEADLINE_EXCEEDED (or
// CANCELLED) when the caller's context ended the call: the code says why the call stopped, the
// reason why it had not succeeded by then. errors.Is finds Last and Cause.
type NodesFailedError struct {
	Attempts int
	Nodes    int
	Last     error
	Cause    error
}

func (e *NodesFailedError) Error() string {
	msg := fmt.Sprintf("idnode client: all nodes failed (%d attempts over %d nodes); most telling error: %v", e.Attempts, e.Nodes, e.Last)
	if e.Cause != nil {
		msg += "; stopped: " + e.Cause.Error()
	}
	return msg
}

// Unwrap gives errors.Is/As the most telling error, then the cause.
func (e *NodesFailedError) Unwrap() []error {
	if e.Cause == nil {
		return []error{e.Last}
	}
	return []error{e.Last, e.Cause}
}

// GRPCStatus is Last's status, with the context's code when the context ended the call.
func (e *NodesFailedError) GRPCStatus() *status.Status {
	code := status.Code(e.Last)
	if e.Cause != nil {
		code = status.FromContextError(e.Cause).Code()
	}
	return reason.Within(code, e.Last, e.Error())
}

// retryable reports whether a failed attempt may be tried again on another node: the node (or
// the cluster, for now) cannot serve, or the attempt's own timeout passed while the caller's
// context is still live.
func retryable(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	switch status.Code(err) {
	case codes.Unavailable, codes.DeadlineExceeded:
		return true
	}
	return false
}

// call runs attempt on one node after another until it succeeds, fails for good, or ctx ends.
// An attempt that returns final(err) ends the call with err. It starts at the node that
// answered last, or with a region at a node of the client's region (region.go).
func (fo *failover) call(ctx context.Context, attempt func(ctx context.Context, n *node) error) error {
	if fo.regions != nil {
		return fo.callInOrder(ctx, 0, fo.regions.order(-1), attempt)
	}
	return fo.callInOrder(ctx, fo.preferred.Load(), nil, attempt)
}

// callRepeatable is call for a call that is safe to repeat (see repeatable).
func (fo *failover) callRepeatable(ctx context.Context, attempt func(ctx context.Context, n *node) error) error {
	return fo.call(ctx, repeatable(attempt))
}

// repeatable marks attempt as safe to repeat on another node: it carries a request_id (a
// retry gets the first attempt's answer, never a second reservation), it only reads, or it
// mints what no other call shares (GUIDs, a node's own server-side numbers, where a repeat
// costs a gap at most). Such a call refused NODE_BUSY (a node at its call bound, which refuses
// before doing anything) goes on to the next node as if refused UNAVAILABLE. A call that is
// not repeatable gets the refusal back: the caller knows whether repeating it is right.
func repeatable(attempt func(ctx context.Context, n *node) error) func(ctx context.Context, n *node) error {
	return func(ctx context.Context, n *node) error {
		err := attempt(ctx, n)
		if status.Code(err) == codes.ResourceExhausted && reason.Of(err) == reason.Busy {
			return &busyError{err}
		}
		return err
	}
}

// busyError is a NODE_BUSY refusal of a repeatable attempt: call tries the next node.
type busyError struct{ err error }

func (b *busyError) Error() string { return b.err.Error() }

// callFrom works like call, but tries node start first.
func (fo *failover) callFrom(ctx context.Context, start int64, attempt func(ctx context.Context, n *node) error) error {
	if fo.regions != nil {
		return fo.callInOrder(ctx, 0, fo.regions.order(start), attempt)
	}
	return fo.callInOrder(ctx, start, nil, attempt)
}

// callInOrder runs attempt on the nodes of order (a permutation of the node indexes), round
// after round, as call describes. Without a region order is nil: the nodes are taken in turn
// from start, each index worked out when its attempt comes, so that the calls of a client
// without a region build no order.
func (fo *failover) callInOrder(ctx context.Context, start int64, order []int64, attempt func(ctx context.Context, n *node) error) error {
	if fo.closed.Load() {
		return ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return status.FromContextError(err).Err()
	}
	var last error
	for i := 0; ; i++ {
		if i > 0 {
			if m := fo.backoff.MaxAttempts; m > 0 && i >= m {
				return &NodesFailedError{Attempts: i, Nodes: len(fo.nodes), Last: last}
			}
			// Back off only once every node failed: a node that is down refuses at once and
			// says nothing about the others, and a pause after each such refusal would make
			// the wait before the survivors are asked again grow with every dead node.
			if round := i / len(fo.nodes); i%len(fo.nodes) == 0 {
				if err := fo.sleep(ctx, fo.delay(round)); err != nil {
					return &NodesFailedError{Attempts: i, Nodes: len(fo.nodes), Last: last, Cause: err}
				}
			}
		}
		idx := (start + int64(i)) % int64(len(fo.nodes))
		if order != nil {
			idx = order[i%len(order)]
		}
		actx, cancel := ctx, context.CancelFunc(func() {})
		if fo.callTimeout > 0 {
			actx, cancel = context.WithTimeout(ctx, fo.callTimeout)
		}
		// Whether this attempt's deadline is the caller's own rather than the per-attempt one:
		// then its DEADLINE_EXCEEDED ends the call (gRPC may report it a moment before
		// ctx.Err() is set).
		callerDeadline := false
		if dl, ok := ctx.Deadline(); ok {
			adl, _ := actx.Deadline()
			callerDeadline = !adl.Before(dl)
		}
		err := attempt(actx, fo.nodes[idx])
		cancel()
		if err == nil {
			fo.answeredBy(idx)
			if fo.regions != nil {
				fo.regions.answered(idx)
			} else if idx != start {
				fo.preferred.Store(idx)
			}
			return nil
		}
		if f := (*finalError)(nil); errors.As(err, &f) {
			return f.err
		}
		retry := retryable(ctx, err)
		if b := (*busyError)(nil); errors.As(err, &b) {
			err, retry = b.err, ctx.Err() == nil
		}
		reason.Note(ctx, err)
		if callerDeadline && status.Code(err) == codes.DeadlineExceeded {
			if i > 0 {
				return &NodesFailedError{Attempts: i + 1, Nodes: len(fo.nodes), Last: last, Cause: context.DeadlineExceeded}
			}
			return err
		}
		if !retry {
			if i > 0 && ctx.Err() != nil {
				// The caller's context ended during a retry: say what the nodes said before.
				return &NodesFailedError{Attempts: i + 1, Nodes: len(fo.nodes), Last: reason.MoreTelling(last, err), Cause: ctx.Err()}
			}
			return err
		}
		if nodeFailed(err) {
			fo.nodeFailedAt(idx)
			if fo.regions != nil {
				fo.regions.failed(idx)
			}
		}
		last = reason.MoreTelling(last, err)
	}
}

// finalError is an attempt's error that ends the call whatever its code: the request may have
// taken effect and must not be repeated, or the caller already has part of the answer.
type finalError struct{ err error }

func (f *finalError) Error() string { return f.err.Error() }

// final marks err (when not nil) as the call's answer; call returns err itself.
func final(err error) error {
	if err == nil {
		return nil
	}
	return &finalError{err}
}

// delay is the backoff before round i (i >= 1).
func (fo *failover) delay(i int) time.Duration {
	b := fo.backoff
	d := float64(b.Initial) * math.Pow(b.Multiplier, float64(i-1))
	d = min(d, float64(b.Max))
	if b.Jitter > 0 {
		d *= 1 + b.Jitter*(2*mrand.Float64()-1)
	}
	return time.Duration(d)
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// newRequestID makes the request_id of one logical call; its retries reuse it.
func newRequestID() string { return "go-" + rand.Text() }

// The client is the generators' range source.
var _ hilo.RangeSource = (*Client)(nil)
