package server

import (
	"context"

	"github.com/idnode/idnode/docid"
	"github.com/idnode/idnode/fsm"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// call is what the server resolves of a request once, when it arrives: the key check, the
// call limit, the handler and the observer read it instead of each parsing the metadata and
// the request again, which cost every call a few allocations each.
type call struct {
	method string // full gRPC method name
	role   string // roleFor(method): "" for a call that is not an IdService one
	// field is the request's database field db was resolved from: a handler asking for another
	// (a test's direct call) resolves afresh.
	field string
	db    string // databaseOf: the field, else the metadata; "" is the default
	dbErr error  // why the request names no valid database
	kind  docid.Kind
	// numeric: a Generate of numeric IDs (kind is then the empty request string's, GUID).
	numeric bool
	// sep is the separator a NextHiLo request asks for (0: none, the cluster's), parsed from
	// sepField; sepErr says why it is not one.
	sepField string
	sep      rune
	sepErr   error
}

// folded is the database as the FSM keys it (fsm.DatabaseName): what keys and limits name.
func (c *call) folded() string { return fsm.DatabaseName(c.db) }

type callKey struct{}

// resolveCall reads the request's database (field, else metadata) and strategy once.
func (s *interceptors) resolveCall(ctx context.Context, method string, req any) *call {
	c := &call{method: method, role: roleFor(method)}
	if r, ok := req.(interface{ GetDatabase() string }); ok {
		c.field = r.GetDatabase()
	}
	c.db, c.dbErr = resolveDatabase(ctx, c.field)
	switch r := req.(type) {
	case *idnodev1.GenerateRequest:
		c.kind = docid.Classify(r.GetId(), s.cfg.Separator)
		c.numeric = r.GetNumeric()
	case *idnodev1.NextIdentityRequest:
		c.kind = docid.Identity
	case *idnodev1.NextHiLoRequest:
		c.kind = docid.HiLo
		c.sepField = r.GetSeparator()
		c.sep, c.sepErr = parseRequestedSeparator(c.sepField)
	}
	return c
}

// withCall is ctx carrying c for the interceptors and handler after.
func withCall(ctx context.Context, c *call) context.Context {
	return context.WithValue(ctx, callKey{}, c)
}

// callOf is the call resolved when ctx's request arrived, or resolved now when none was (an
// interceptor or handler run on its own, as tests do).
func (s *interceptors) callOf(ctx context.Context, method string, req any) *call {
	if c, ok := ctx.Value(callKey{}).(*call); ok && c.method == method {
		return c
	}
	return s.resolveCall(ctx, method, req)
}

// databaseOf is the database a call names: its field, else the metadata, else "" (the
// default). A name that breaks the rules is INVALID_ARGUMENT; one that field and metadata
// disagree on too. Identities and HiLo check that it exists when they apply, on the leader.
func databaseOf(ctx context.Context, field string) (string, error) {
	if c, ok := ctx.Value(callKey{}).(*call); ok && c.field == field {
		return c.db, c.dbErr
	}
	return resolveDatabase(ctx, field)
}

// requestedSeparator is the separator a NextHiLo request asks for, 0 for none (the cluster's).
func requestedSeparator(ctx context.Context, req *idnodev1.NextHiLoRequest) (rune, error) {
	if c, ok := ctx.Value(callKey{}).(*call); ok && c.kind == docid.HiLo && c.sepField == req.GetSeparator() {
		return c.sep, c.sepErr
	}
	return parseRequestedSeparator(req.GetSeparator())
}

func parseRequestedSeparator(field string) (rune, error) {
	if field == "" {
		return 0, nil
	}
	return docid.ParseSeparator(field)
}
