package server

import (
	"fmt"

	"google.golang.org/grpc/codes"

	"github.com/idnode/idnode/internal/hilogrant"
	"github.com/idnode/idnode/reason"
)

// maxRequestIDBytes bounds the request_id of every call that takes one. The cluster keeps each
// request_id it was given in the log and, for ten minutes, in every replica's table of answers
// (up to 200,000 of them), so without a bound one caller could make each entry megabytes. A
// HiLo grant is named by its request_id, so the bound is the grant identity's; a client's
// random ids take some 30 bytes.
const maxRequestIDBytes = hilogrant.MaxIDLength

// requestIDCarrier is a request with a request_id field.
type requestIDCarrier interface{ GetRequestId() string }

// checkRequestID refuses a request whose request_id is over maxRequestIDBytes: INVALID_ARGUMENT
// before anything is done. It is the one check of the bound on the way in, the HiLo calls'
// included (the FSM checks a grant's identity again as it applies it).
func checkRequestID(req any) error {
	r, ok := req.(requestIDCarrier)
	if !ok || len(r.GetRequestId()) <= maxRequestIDBytes {
		return nil
	}
	return reason.Error(codes.InvalidArgument, reason.InvalidInput,
		fmt.Sprintf("request_id is %d bytes; at most %d", len(r.GetRequestId()), maxRequestIDBytes))
}
