package faulttable

import (
	"errors"
	"fmt"

	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/client"
	"github.com/idnode/idnode/client/rowkeys"
	"github.com/idnode/idnode/reason"
)

// Kind names what an application matches err with: the Go client's error values and types
// (and rowkeys.ErrClosed), which errors.Is and errors.As find inside the errors that wrap them.
func Kind(err error) string {
	var nf *client.NodesFailedError
	switch _, isStatus := status.FromError(err); {
	case err == nil:
		return "none"
	case errors.Is(err, client.ErrClosed):
		return "`client.ErrClosed`"
	case errors.Is(err, rowkeys.ErrClosed):
		return "`rowkeys.ErrClosed`"
	case errors.As(err, &nf):
		return "`*client.NodesFailedError`"
	case isStatus:
		return "a gRPC status error"
	default:
		return fmt.Sprintf("`%T`", err)
	}
}

// CodeAndReason are the gRPC code (status.Code) and idnode reason (reason.Of) of a failed
// call as the table shows them, "—" for a reason it does not carry.
func CodeAndReason(err error) (code, why string) {
	code, why = reason.CodeName(status.Code(err)), "—"
	if s := reason.Of(err); s != "" {
		why = s
	}
	return code, why
}
