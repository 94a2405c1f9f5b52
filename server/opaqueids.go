package server

import (
	"context"
	"fmt"
	"strconv"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/docid"
	"github.com/idnode/idnode/fsm"
	"github.com/idnode/idnode/identity"
	forwardv1 "github.com/idnode/idnode/proto/idnode/forward/v1"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
	"github.com/idnode/idnode/reason"
)

// The forms of an opaque database's IDs (docs/opaque-ids.md). Uniqueness stays the counter's:
// FF1 is a permutation, so distinct values give distinct forms, and every node holds the same
// key and folds names alike, so every node writes a value's one form.

// codecRefusal is the status of a codec the node cannot make from the state it holds (a key
// of the wrong size), which the state machine never stores: a bug, not the caller's. The
// codecs are the state machine's own (fsm.OpaqueIdentityCodec), kept beside the key they were
// made with, so no codec outlives a key that a snapshot install replaced.
func codecRefusal(err error) error {
	return status.Errorf(codes.Internal, "the database's opaque key cannot make a codec: %v", err)
}

// identityWriter returns how the identity IDs of inc are written: plain, or as forms when
// its collection is opaque in this node's state, which is current for the increment (see
// awaitRelayed: a follower that the leader's answer shows to be behind on the setting has
// caught up before it gets here).
func (s opaqueForms) identityWriter(inc *raftv1.IdentityIncrement) (func(v int64) (string, error), error) {
	name, sep := inc.GetName(), s.cfg.Separator
	c, err := s.node.FSM().OpaqueIdentityCodec(inc.GetDatabase(), name)
	switch {
	case err != nil:
		return nil, codecRefusal(err)
	case c == nil:
		return func(v int64) (string, error) { return docid.IdentityID(name, sep, v), nil }, nil
	}
	prefix := name + string(sep)
	return func(v int64) (string, error) {
		form, err := c.Encode(v)
		if err != nil {
			return "", status.Errorf(codes.Internal, "identity %q: %v", name, err)
		}
		return prefix + form, nil
	}, nil
}

// identity reports whether identity name of database db is an opaque collection here.
func (s opaqueForms) identity(db, name string) bool {
	setting, ok := s.node.FSM().Opaque(db)
	return ok && setting.Has(name)
}

// refuseIdentity refuses NextIdentity on an opaque collection: first and last are the
// values its forms hide.
func (s opaqueForms) refuseIdentity(db, name string) error {
	if !s.identity(db, name) {
		return nil
	}
	return opaqueRefusal(fmt.Sprintf("collection %s of database %s is opaque: Generate with %q gives its IDs; its values are not published",
		name, fsm.DatabaseName(db), name+"|"))
}

// numericWriter returns how db's numeric IDs are written: decimal, or as forms in an
// opaque-numeric database. The setting this node holds is final once its minter holds a lease
// (numericMinter catches up after acquiring it): numeric IDs can turn opaque only before the
// database's first worker lease.
func (s opaqueForms) numericWriter(db string) (func(v int64) (string, error), error) {
	c, err := s.node.FSM().OpaqueNumericCodec(db)
	switch {
	case err != nil:
		return nil, codecRefusal(err)
	case c == nil:
		return func(v int64) (string, error) { return strconv.FormatInt(v, 10), nil }, nil
	}
	return func(v int64) (string, error) {
		form, err := c.Encode(v)
		if err != nil {
			return "", status.Errorf(codes.Internal, "numeric ID %d: %v", v, err)
		}
		return form, nil
	}, nil
}

// refuseClientLease refuses a client's worker lease in a database whose numeric IDs are
// opaque: a client would mint plain IDs without the key. It asks after this node has caught
// up with the leader, so a setting committed before the call arrived is seen.
func (s opaqueForms) refuseClientLease(ctx context.Context, db string) error {
	opaqueNumeric := func() bool {
		setting, ok := s.node.FSM().Opaque(db)
		return ok && setting.Numeric
	}
	if !s.knownAfterCatchUp(ctx, opaqueNumeric) {
		return nil
	}
	return opaqueRefusal(fmt.Sprintf("database %s has opaque numeric IDs: a client cannot lease a worker and mint them without the key; "+
		"Generate with numeric gives them", fsm.DatabaseName(db)))
}

// awaitRelayed makes this node's state hold every collection the leader answered as opaque
// (answers, to the increments incs) before the callers' IDs are written, so that they are the
// forms the leader would write: the leader applied the setting before their increments, this
// node may not have yet. It catches up with the leader, within catchUpWait, only when the
// state lacks one; if it still does then, those callers' results (out) are refused rather
// than written as plain IDs that show the values the forms hide.
func (s opaqueForms) awaitRelayed(ctx context.Context, incs []*raftv1.IdentityIncrement, answers []*forwardv1.IdentityAnswer, out []identity.Result) {
	known := func() bool {
		for i, a := range answers {
			if a.GetOpaque() && i < len(incs) && !s.identity(incs[i].GetDatabase(), incs[i].GetName()) {
				return false
			}
		}
		return true
	}
	if s.knownAfterCatchUp(ctx, known) {
		return
	}
	for i, a := range answers {
		if a.GetOpaque() && i < len(out) && out[i].Err == nil {
			out[i].Err = reason.Error(codes.Unavailable, reason.NoQuorum,
				"the collection turned opaque and this node has not caught up with the leader to write its forms: nothing was handed out; retry, here or on another node")
		}
	}
}
