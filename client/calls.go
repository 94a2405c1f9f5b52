package client

import (
	"context"
	"errors"
	"iter"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/idnode/idnode/docid"
	"github.com/idnode/idnode/hilo"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/reason"
)

// Generate resolves a request string by its last character: a semantic ID is validated and echoed,
// "" gives UUIDs, "prefix/" server-side IDs, "prefix|" cluster identities. count 0 means 1. An
// identity request carries a request_id reused across retries, so a retry never burns values.
func (c *Client) Generate(ctx context.Context, id string, count int64) ([]string, error) {
	resp, err := c.GenerateRaw(ctx, &idnodev1.GenerateRequest{Id: id, Count: count})
	if err != nil {
		return nil, err
	}
	return resp.GetIds(), nil
}

// GenerateRaw is Generate with every field of the request (a UUIDv4, a request_id of the
// caller's, a claim). An identity or claim request without a request_id gets one, reused
// across retries. req is not modified.
func (c *Client) GenerateRaw(ctx context.Context, req *idnodev1.GenerateRequest) (*idnodev1.GenerateResponse, error) {
	if req.GetRequestId() == "" && (strings.HasSuffix(req.GetId(), "|") || req.GetClaim()) {
		req = proto.CloneOf(req)
		req.RequestId = newRequestID()
	}
	via := c.callRepeatable // semantic IDs, GUIDs and server-side IDs: any node, spread
	if strings.HasSuffix(req.GetId(), "|") || req.GetClaim() {
		via = c.callLeaderRepeatable
	}
	return unaryCall(ctx, via, idsOf, idnodev1.IdServiceClient.Generate, req)
}

// NextIdentity reserves count (0 means 1) values of the identity counter name: the next ones
// nobody claimed, so the block may have holes where someone claimed "name/N" (range over
// block.All()). A block that would step over more than 64 claimed values ends early, so it
// may hold fewer than count values (block.Len(), at least one). A retry on another node
// reuses the call's request_id: the cluster answers it with the values it already reserved
// instead of new ones.
//
// Concurrent calls for one value (count 0 or 1) of the same counter are folded together:
// the calls that arrive while a call for that counter is in flight share the next call, which
// asks for one value each, and its block is split among them in arrival order (fold.go). A call that starts after
// another returned still gets a larger value. A call whose context carries outgoing gRPC
// metadata is sent on its own: the metadata may be its caller's alone.
func (c *Client) NextIdentity(ctx context.Context, name string, count int64) (docid.IdentityBlock, error) {
	if count == 0 || count == 1 {
		if _, ok := metadata.FromOutgoingContext(ctx); !ok {
			return c.fold.next(ctx, name)
		}
	}
	return c.NextIdentityRaw(ctx, &idnodev1.NextIdentityRequest{Name: name, Count: count})
}

// NextIdentityRaw is NextIdentity with every field of the request: a request_id of the
// caller's, kept with the work it numbers, makes a call repeated after a crash answer the
// values the first one reserved. Without one the Client makes one, which covers its own
// retries only. req is not modified.
func (c *Client) NextIdentityRaw(ctx context.Context, req *idnodev1.NextIdentityRequest) (docid.IdentityBlock, error) {
	if req.GetRequestId() == "" {
		req = proto.CloneOf(req)
		req.RequestId = newRequestID()
	}
	resp, err := unaryCall(ctx, c.callLeaderRepeatable, idsOf, idnodev1.IdServiceClient.NextIdentity, req)
	if err != nil {
		return docid.IdentityBlock{}, err
	}
	return docid.IdentityBlock{First: resp.GetFirst(), Last: resp.GetLast(), Skipped: resp.GetSkipped()}, nil
}

// SeedIdentity raises the identity counter name to value (or, with force, sets it exactly) and
// returns the counter afterwards; the next identity is that + 1.
func (c *Client) SeedIdentity(ctx context.Context, name string, value int64, force bool) (int64, error) {
	req := &idnodev1.SeedIdentityRequest{Name: name, Value: value, Force: force}
	resp, err := unaryCall(ctx, c.callLeader, idsOf, idnodev1.IdServiceClient.SeedIdentity, req)
	if err != nil {
		return 0, err
	}
	return resp.GetValue(), nil
}

// ListIdentities returns one page of identity counters (linearizable): names starting with
// req.Prefix (case-insensitive), req.PageSize of them (0: the server's default), after
// req.PageToken. See Identities for all pages.
func (c *Client) ListIdentities(ctx context.Context, req *idnodev1.ListIdentitiesRequest) (*idnodev1.ListIdentitiesResponse, error) {
	return unaryCall(ctx, c.callLeaderRepeatable, idsOf, idnodev1.IdServiceClient.ListIdentities, req)
}

// Identities iterates over every identity counter whose name starts with prefix, page by page
// (pageSize 0: the server's default). An error ends the iteration as its last element.
//
//	for id, err := range c.Identities(ctx, "orders", 0) { … }
func (c *Client) Identities(ctx context.Context, prefix string, pageSize int32) iter.Seq2[*idnodev1.Identity, error] {
	return func(yield func(*idnodev1.Identity, error) bool) {
		token := ""
		for {
			page, err := c.ListIdentities(ctx, &idnodev1.ListIdentitiesRequest{Prefix: prefix, PageSize: pageSize, PageToken: token})
			if err != nil {
				yield(nil, err)
				return
			}
			for _, id := range page.GetIdentities() {
				if !yield(id, nil) {
					return
				}
			}
			if page.GetNextPageToken() == "" || page.GetNextPageToken() == token || len(page.GetIdentities()) == 0 {
				return
			}
			token = page.GetNextPageToken()
		}
	}
}

// NextHiLo reserves a HiLo range (the raw call behind NextID). Without a request_id it gets
// one, reused across retries. req is not modified. It goes to the leader first, or with
// WithRegion to a node of the client's region: with HiLo pools (the default) every node grants
// ranges from its own pool, and without them the node relays the call to the leader, which
// costs about what calling the leader directly would.
func (c *Client) NextHiLo(ctx context.Context, req *idnodev1.NextHiLoRequest) (*idnodev1.NextHiLoResponse, error) {
	if req.GetRequestId() == "" {
		req = proto.CloneOf(req)
		req.RequestId = newRequestID()
	}
	via := c.callLeaderRepeatable
	if c.regions != nil {
		via = c.callRepeatable
	}
	var resp *idnodev1.NextHiLoResponse
	err := via(ctx, func(ctx context.Context, n *node) (err error) {
		if resp, err = n.ids.NextHiLo(ctx, req); err == nil {
			c.grants.remember(resp.GetGrantId(), c.indexOf(n))
		}
		return err
	})
	return resp, err
}

// ReturnHiLo gives back the unused tail (req.Last, req.End] of a range (the raw call behind
// Close); req.GrantId is the range's NextHiLoResponse.grant_id. It reports whether the numbers
// went back: the cluster takes back only the newest range of the tag, once, and only with its
// grant_id (see ReturnHiLoRequest); otherwise they stay a gap and it reports false. It goes
// first to the node that granted the range, when this Client fetched it: with HiLo pools only
// that node can take it back. Without a request_id it gets one, reused across retries, so a
// retry of a return that took effect answers true as the first attempt did. req is not
// modified.
func (c *Client) ReturnHiLo(ctx context.Context, req *idnodev1.ReturnHiLoRequest) (bool, error) {
	if req.GetRequestId() == "" {
		req = proto.CloneOf(req)
		req.RequestId = newRequestID()
	}
	var returned bool
	via := c.callLeader
	if granter, ok := c.grants.node(req.GetGrantId()); ok {
		via = func(ctx context.Context, attempt func(context.Context, *node) error) error {
			return c.callFrom(ctx, granter, attempt)
		}
	}
	err := via(ctx, func(ctx context.Context, n *node) error {
		resp, err := n.ids.ReturnHiLo(ctx, req)
		returned = resp.GetReturned()
		return err
	})
	return returned, err
}

// SeedHiLo raises the HiLo Max of tag to max and returns the Max afterwards; the next range
// starts above it (moving a collection from RavenDB, whose Raven/Hilo/<tag> document holds its
// Max, or from another store). A value at or below the Max changes nothing. With API keys it
// needs an admin key of the database.
func (c *Client) SeedHiLo(ctx context.Context, tag string, max int64) (int64, error) {
	req := &idnodev1.SeedHiLoRequest{Tag: tag, Max: max}
	resp, err := unaryCall(ctx, c.callLeader, idsOf, idnodev1.IdServiceClient.SeedHiLo, req)
	if err != nil {
		return 0, err
	}
	return resp.GetMax(), nil
}

// ListHiLo returns one page of the database's HiLo tags that start with req.Prefix: each
// tag's Max and floor, and each node's pool of it as that node reports it (linearizable on the leader;
// the pools are asked of each node).
func (c *Client) ListHiLo(ctx context.Context, req *idnodev1.ListHiLoRequest) (*idnodev1.ListHiLoResponse, error) {
	return unaryCall(ctx, c.callLeaderRepeatable, idsOf, idnodev1.IdServiceClient.ListHiLo, req)
}

// NextID returns a HiLo ID of collection, such as "orders/17-A", from the collection's
// generator (created on first use). It normally takes well under a microsecond: the numbers
// come from a range reserved in advance, and the next range is fetched in the background.
// The first call of a collection waits for its first range.
func (c *Client) NextID(ctx context.Context, collection string) (string, error) {
	id, err := c.gens.NextID(ctx, collection)
	if err != nil {
		return "", generatorError(err)
	}
	return id, nil
}

// Generator returns collection's HiLo generator (the one NextID uses), e.g. to read its Stats,
// or to take many keys at once for a batch insert: its NextIDs and NextNumbers take them a
// range at a time rather than one by one, from the same ranges as NextID's IDs, so numbers and
// IDs of one tag never repeat each other. After Close, the generator answers hilo.ErrClosed.
func (c *Client) Generator(collection string) (*hilo.Generator, error) {
	g, err := c.gens.Generator(collection)
	if err != nil {
		return nil, generatorError(err)
	}
	return g, nil
}

// generatorError maps the generator's own errors to the client's: ErrClosed, and
// INVALID_ARGUMENT for a bad collection name.
func generatorError(err error) error {
	if errors.Is(err, hilo.ErrClosed) {
		return ErrClosed
	}
	if _, ok := status.FromError(err); !ok && isValidation(err) {
		return reason.Error(codes.InvalidArgument, reason.InvalidInput, err.Error())
	}
	return err
}
