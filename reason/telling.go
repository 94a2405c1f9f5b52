package reason

import (
	"context"
	"sync"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// MoreTelling returns whichever of kept and err says more about why a call that tried several
// nodes failed: a refusal a node sent (it carries a reason: NO_QUORUM, NOT_CAUGHT_UP, …) over
// an error with none (a connection refused, a node that said nothing in time), and of two
// alike the newer, err (a nil err is none, and leaves kept). A client keeps it over the call's
// attempts, so that its final error names a live node's refusal rather than the dead node it
// tried last.
func MoreTelling(kept, err error) error {
	if err == nil || kept != nil && Of(kept) != "" && Of(err) == "" {
		return kept
	}
	return err
}

// Ended is the error of a call whose context ended (ctxErr: context.DeadlineExceeded or
// context.Canceled) after its attempts were refused, refusal being the most telling of those
// refusals (MoreTelling; nil: none). Its gRPC code is the context's, DEADLINE_EXCEEDED or
// CANCELLED, and its ErrorInfo the refusal's, so status.Code says why the call stopped and Of
// why it had not succeeded by then; errors.Is finds both ctxErr and refusal.
func Ended(ctxErr, refusal error) error {
	return &endedError{ctx: ctxErr, refusal: refusal}
}

type endedError struct{ ctx, refusal error }

func (e *endedError) Error() string {
	if e.refusal == nil {
		return e.ctx.Error()
	}
	return e.ctx.Error() + "; before it, " + e.refusal.Error()
}

func (e *endedError) Unwrap() []error {
	if e.refusal == nil {
		return []error{e.ctx}
	}
	return []error{e.ctx, e.refusal}
}

// GRPCStatus is the context's code with the refusal's details.
func (e *endedError) GRPCStatus() *status.Status {
	return Within(status.FromContextError(e.ctx).Code(), e.refusal, e.Error())
}

// Within returns a status of code and msg that carries refusal's details (its ErrorInfo), or
// none when refusal is not a status error.
func Within(code codes.Code, refusal error, msg string) *status.Status {
	p := status.New(code, msg).Proto()
	if st, ok := status.FromError(refusal); ok && refusal != nil {
		p.Details = st.Proto().GetDetails()
	}
	return status.FromProto(p)
}

// A Record keeps the most telling refusal (MoreTelling) of a call's attempts while it runs, for
// someone who waits on the call from elsewhere and may stop waiting before it ends: a HiLo
// caller whose deadline ends while the range it waits for is fetched in the background. It is
// safe for concurrent use; the zero Record is ready.
type Record struct {
	mu  sync.Mutex
	err error
}

type recordKey struct{}

// WithRecord returns ctx carrying r: a client notes in it each failed attempt of a call made
// with that ctx (Note).
func WithRecord(ctx context.Context, r *Record) context.Context {
	return context.WithValue(ctx, recordKey{}, r)
}

// Note adds err, a failed attempt of a call made with ctx, to ctx's Record, if it has one.
func Note(ctx context.Context, err error) {
	r, _ := ctx.Value(recordKey{}).(*Record)
	if r == nil || err == nil {
		return
	}
	r.mu.Lock()
	r.err = MoreTelling(r.err, err)
	r.mu.Unlock()
}

// Err is the most telling refusal noted so far, or nil.
func (r *Record) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}
