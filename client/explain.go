package client

import (
	"context"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// Explain says what an ID is (numeric: time, worker, sequence; a string: which strategy
// minted it). Any node answers. An opaque form of the Client's database (WithDatabase) is
// Opaque in the answer; its value is filled for an admin only, and a string under an opaque
// collection that is no form of the database is INVALID_ARGUMENT, reason NOT_OPAQUE_FORM.
func (c *Client) Explain(ctx context.Context, id string) (*idnodev1.ExplainResponse, error) {
	req := &idnodev1.ExplainRequest{Id: id, Database: c.opts.database}
	return unaryCall(ctx, c.callRepeatable, idsOf, idnodev1.IdServiceClient.Explain, req)
}
