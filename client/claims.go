package client

import (
	"context"

	"google.golang.org/protobuf/proto"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// AssignOption changes what AssignID does.
type AssignOption func(*assignOptions)

type assignOptions struct {
	claim bool
	owner string
}

// ClaimID makes AssignID claim an entity's semantic ID (one it already holds, such as
// "users/ayende") cluster-wide for owner ("" for none): the call fails with ALREADY_EXISTS
// (reason CLAIMED) when someone else has it, so the ID is the caller's alone.
func ClaimID(owner string) AssignOption {
	return func(o *assignOptions) { o.claim, o.owner = true, owner }
}

// Claim records ids (semantic IDs, at most 1,000) as taken for owner ("" for none), all or
// nothing. An ID someone holds already (compared case-insensitively) fails the whole call
// with ALREADY_EXISTS, reason CLAIMED, naming it and its owner; so does an identity the
// cluster handed out. A claimed "prefix/N" makes the identity "prefix|" skip N. Retries on
// another node reuse the call's request_id, so a claim whose answer was lost is not refused
// as its own.
func (c *Client) Claim(ctx context.Context, owner string, ids ...string) error {
	return c.ClaimRaw(ctx, &idnodev1.ClaimRequest{Ids: ids, Owner: owner})
}

// ClaimRaw is Claim with every field of the request: a request_id of the caller's makes a
// claim repeated after a crash succeed again instead of finding its own claims. Without one
// the Client makes one, which covers its own retries only. req is not modified.
func (c *Client) ClaimRaw(ctx context.Context, req *idnodev1.ClaimRequest) error {
	if req.GetRequestId() == "" {
		req = proto.CloneOf(req)
		req.RequestId = newRequestID()
	}
	return c.callLeaderRepeatable(ctx, func(ctx context.Context, n *node) error {
		_, err := n.ids.Claim(ctx, req)
		return err
	})
}

// Release gives claimed ids back, all or nothing, and says how many were claimed. With an
// owner, an ID claimed by another owner fails the call (FAILED_PRECONDITION); "" releases
// whoever's they are.
func (c *Client) Release(ctx context.Context, owner string, ids ...string) (int64, error) {
	resp, err := c.ReleaseRaw(ctx, &idnodev1.ReleaseRequest{Ids: ids, Owner: owner})
	return resp.GetReleased(), err
}

// ReleaseRaw is Release with every field of the request. The Client tries it again where an
// attempt's answer was lost, with a request_id (its own when req has none), so that the
// answer is the count the first attempt released, not 0 for IDs released by then; a cluster
// finalised below version 8 ignores the request_id, and such a retry may answer 0. req is not
// modified.
func (c *Client) ReleaseRaw(ctx context.Context, req *idnodev1.ReleaseRequest) (*idnodev1.ReleaseResponse, error) {
	if req.GetRequestId() == "" {
		req = proto.CloneOf(req)
		req.RequestId = newRequestID()
	}
	return unaryCall(ctx, c.callLeaderRepeatable, idsOf, idnodev1.IdServiceClient.Release, req)
}

// Claims looks ids up (linearizable) and returns the claims of those that are claimed, in the
// order asked: the ID as claimed and its owner.
func (c *Client) Claims(ctx context.Context, ids ...string) ([]*idnodev1.Claim, error) {
	resp, err := c.GetClaims(ctx, &idnodev1.GetClaimsRequest{Ids: ids})
	return resp.GetClaims(), err
}

// GetClaims makes the raw call. It looks up req.Ids, or returns one page of the claims that
// start with req.Prefix.
func (c *Client) GetClaims(ctx context.Context, req *idnodev1.GetClaimsRequest) (*idnodev1.GetClaimsResponse, error) {
	return unaryCall(ctx, c.callLeaderRepeatable, idsOf, idnodev1.IdServiceClient.GetClaims, req)
}
