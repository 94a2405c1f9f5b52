// Package reason names why idnode refused a call. Every refusal carries a google.rpc.ErrorInfo
// in its gRPC status, with domain Domain and one of the reasons below, so a client can branch
// on the reason instead of parsing messages. proto/idnode/v1/idnode.proto lists them too.
package reason

import (
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Domain is the ErrorInfo domain of idnode's reasons.
const Domain = "idnode.dev"

// The reasons. A refusal with no more specific reason carries its gRPC code's name
// (FAILED_PRECONDITION, NOT_FOUND, DEADLINE_EXCEEDED, …).
const (
	// NoQuorum (UNAVAILABLE): no leader, or no majority, can be reached now. Nothing was
	// done; retry, here or on another node.
	NoQuorum = "NO_QUORUM"
	// OutcomeUnknown (UNAVAILABLE): leadership was lost while the call was in flight, or the
	// leader a follower forwarded it to went silent; it may have taken effect. Retry with the
	// same request_id to get its answer.
	OutcomeUnknown = "OUTCOME_UNKNOWN"
	// ShuttingDown (UNAVAILABLE): the node is stopping; use another.
	ShuttingDown = "SHUTTING_DOWN"
	// NotRegistered (UNAVAILABLE): the node is not (yet) accepted by the cluster under its
	// tag, so it issues no server-side IDs.
	NotRegistered = "NOT_REGISTERED"
	// NotCaughtUp (UNAVAILABLE): the node has not yet applied what the cluster had committed
	// when it started, so it may not know an API key the cluster has, and refuses calls a key
	// guards rather than answer with less security than the cluster; or it has, but has not yet
	// compared its state with the cluster's (docs/replica-checks.md, "At start"). Use another
	// node; this one serves them once it has caught up.
	NotCaughtUp = "NOT_CAUGHT_UP"
	// ReplicaDiverged (UNAVAILABLE): the node's state differs from the one a majority of the
	// cluster holds at the same log index, found by its start-up check or the cluster's
	// periodic one (docs/replica-checks.md, "At start" and "Fencing"), so its answers could be
	// wrong; it answers nothing that needs the state until an operator rebuilds it. Use
	// another node.
	ReplicaDiverged = "REPLICA_DIVERGED"
	// InvalidInput (INVALID_ARGUMENT): the request breaks a rule the message names.
	InvalidInput = "INVALID_INPUT"
	// RequestIDReused (INVALID_ARGUMENT): the request_id answered another request before.
	RequestIDReused = "REQUEST_ID_REUSED"
	// InUse (ALREADY_EXISTS): a node tag or address that another node holds, or a retired tag.
	InUse = "IN_USE"
	// Claimed (ALREADY_EXISTS): a semantic ID someone claimed, or an identity handed out; the
	// message names the ID and, when the claim gave one, its owner.
	Claimed = "CLAIMED"
	// SeparatorMismatch (FAILED_PRECONDITION): the node's separator is not the cluster's.
	SeparatorMismatch = "SEPARATOR_MISMATCH"
	// RangeReturned (FAILED_PRECONDITION): a retried HiLo request's range was given back since.
	RangeReturned = "RANGE_RETURNED"
	// SeriesRestoring (FAILED_PRECONDITION): a backup's restore put back only part of the series,
	// so it issues and voids nothing until the rest is back; the message names the series and
	// how many of the backup's entries it holds. Run the restore again to open it.
	SeriesRestoring = "SERIES_RESTORING"
	// OpaqueCollection (FAILED_PRECONDITION): NextIdentity on an opaque collection, whose
	// values are what its forms hide (Generate with "prefix|" gives its IDs), or a client's
	// worker lease in a database whose numeric IDs are opaque (a client mints without the key).
	OpaqueCollection = "OPAQUE_COLLECTION"
	// NotOpaqueForm (INVALID_ARGUMENT): Explain was given, under an opaque collection (or in
	// an opaque-numeric database), a string that is no form of this database: the wrong length,
	// a character outside Crockford's base 32, or a form that decodes outside the counter's
	// range (made under another key). The message gives the decoder's reason.
	NotOpaqueForm = "NOT_OPAQUE_FORM"
	// CounterOverflow (OUT_OF_RANGE): a counter would pass the largest int64.
	CounterOverflow = "COUNTER_OVERFLOW"
	// StorageFull (UNAVAILABLE): the node's disk is full; nothing was handed out. Use another
	// node; this one serves again once space is freed.
	StorageFull = "STORAGE_FULL"
	// StorageFailed (UNAVAILABLE): the node cannot write its storage for another reason.
	StorageFailed = "STORAGE_FAILED"
	// Busy (RESOURCE_EXHAUSTED): the node holds as many calls as it takes at once
	// (--grpc-max-calls), or as many listings; nothing was done. Retry after a moment, or on
	// another node.
	Busy = "NODE_BUSY"
)

// AboutTheNode reports whether a refusal with reason r is about the node that sent it, not
// the cluster: the node is busy, stopping, behind, fenced, or cannot write its own storage, and another
// node may serve the call now. A client puts such a node behind the others for a while, as it
// does one it cannot reach. The other reasons (NO_QUORUM, OUTCOME_UNKNOWN …) are about the
// cluster, which every node shares, or about the call itself.
func AboutTheNode(r string) bool {
	switch r {
	case Busy, ShuttingDown, NotCaughtUp, StorageFull, StorageFailed, NotRegistered, ReplicaDiverged:
		return true
	}
	return false
}

// Of returns the reason err carries, or "" when it carries none of idnode's.
func Of(err error) string {
	st, ok := status.FromError(err)
	if !ok {
		return ""
	}
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok && info.GetDomain() == Domain {
			return info.GetReason()
		}
	}
	return ""
}

// Error returns a status error with code, msg and reason r.
func Error(code codes.Code, r, msg string) error {
	return Attach(status.New(code, msg), r).Err()
}

// Attach returns st with an ErrorInfo of reason r; a status that has one already, or an OK
// status, is returned as it is. An empty r means the code's name.
func Attach(st *status.Status, r string) *status.Status {
	if st.Code() == codes.OK || Of(st.Err()) != "" {
		return st
	}
	if r == "" {
		r = CodeName(st.Code())
	}
	with, err := st.WithDetails(&errdetails.ErrorInfo{Reason: r, Domain: Domain})
	if err != nil {
		return st // only an OK status or an unmarshalable detail fails, neither of which happens here
	}
	return with
}

// CodeName is the code's name as the gRPC spec writes it: FAILED_PRECONDITION.
func CodeName(c codes.Code) string {
	name := []byte(c.String())
	var out []byte
	for i, b := range name {
		if i > 0 && b >= 'A' && b <= 'Z' {
			out = append(out, '_')
		}
		out = append(out, b&^0x20)
	}
	return string(out)
}
