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
	"github.com/idnode/idnode/opaque"
	forwardv1 "github.com/idnode/idnode/proto/idnode/forward/v1"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
	"github.com/idnode/idnode/reason"
)

// The forms of an opaque database's IDs (docs/opaque-ids.md). Uniqueness stays the counter's:
// FF1 is a permutation, so distinct values give distinct forms, and every node holds the same
// key and folds names alike, so every node writes a value's one form.

// codecRefusal is the status of a codec the node cannot make from the key it holds or the
// leader sent (a key of the wrong size), which the state machine never stores: a bug, not the
// caller's. The codecs are the state machine's own (fsm.IdentityForms, fsm.OpaqueNumericCodec),
// kept beside the key they were made with, so no codec outlives a key that a snapshot install
// replaced; a follower makes one from the leader's answer for the batch it relayed.
func codecRefusal(err error) error {
	return status.Errorf(codes.Internal, "the database's opaque key cannot make a codec: %v", err)
}

// identityWriter returns how the identity IDs of inc are written: as forms when forms (the
// increment's answer, fsm.IdentityRange.Forms) says its collection was opaque in the state
// that applied it, plain when it is nil. It reads no state: the decision is the one made with
// the counter's values, on the leader (relayedForms brings it to a follower).
func (s opaqueForms) identityWriter(inc *raftv1.IdentityIncrement, forms *fsm.IdentityForms) func(v int64) (string, error) {
	name, sep := inc.GetName(), s.cfg.Separator
	if forms == nil {
		return func(v int64) (string, error) { return docid.IdentityID(name, sep, v), nil }
	}
	prefix := name + string(sep)
	return func(v int64) (string, error) {
		form, err := forms.Codec.Encode(v)
		if err != nil {
			return "", status.Errorf(codes.Internal, "identity %q: %v", name, err)
		}
		return prefix + form, nil
	}
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
	return identityRefusal(db, name)
}

// identityRefusal is NextIdentity's refusal of opaque collection name of database db.
func identityRefusal(db, name string) error {
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

// relayedForms sets how the callers' IDs of a relayed batch are written (out[i].Forms), from
// the leader's answers to the increments incs: plain, or as the forms of the key and tweak
// the leader's state wrote at the increment's index, so this node writes what the leader
// would whatever its own state holds yet. The codec is made once a collection in the batch.
// A leader of an older build answers opaque without them: awaitRelayed takes those.
func (s opaqueForms) relayedForms(ctx context.Context, incs []*raftv1.IdentityIncrement, answers []*forwardv1.IdentityAnswer, out []identity.Result) {
	var made map[string]*fsm.IdentityForms // by tweak and key, once an answer is opaque
	older := false
	for i, a := range answers {
		switch {
		case i >= len(out) || out[i].Err != nil || !a.GetOpaque():
			continue
		case len(a.GetOpaqueKey()) == 0:
			older = true
			continue
		}
		id := a.GetOpaqueTweak() + "\x00" + string(a.GetOpaqueKey())
		forms := made[id]
		if forms == nil {
			c, err := opaque.NewIdentityCodec(a.GetOpaqueKey(), a.GetOpaqueTweak())
			if err != nil {
				out[i].Err = codecRefusal(err)
				continue
			}
			forms = &fsm.IdentityForms{Codec: c, Key: a.GetOpaqueKey(), Tweak: a.GetOpaqueTweak()}
			if made == nil {
				made = make(map[string]*fsm.IdentityForms)
			}
			made[id] = forms
		}
		out[i].Forms = forms
	}
	if older {
		s.awaitRelayed(ctx, incs, answers, out)
	}
}

// awaitRelayed writes, with this node's own state, the callers' IDs that a leader of an older
// build answered as opaque without the key and tweak (answers, to the increments incs): the
// leader applied the setting before their increments, this node may not have yet. It catches
// up with the leader, within the catch-up gate's wait, only when the state lacks one; if it
// still does then, those callers' results (out) are refused rather than written as plain IDs
// that show the values the forms hide.
func (s opaqueForms) awaitRelayed(ctx context.Context, incs []*raftv1.IdentityIncrement, answers []*forwardv1.IdentityAnswer, out []identity.Result) {
	waiting := func(i int) bool {
		a := answers[i]
		return a.GetOpaque() && len(a.GetOpaqueKey()) == 0 && i < len(incs) && i < len(out) && out[i].Err == nil
	}
	known := func() bool {
		for i := range answers {
			if waiting(i) && !s.identity(incs[i].GetDatabase(), incs[i].GetName()) {
				return false
			}
		}
		return true
	}
	if !s.knownAfterCatchUp(ctx, known) {
		for i := range answers {
			if waiting(i) {
				out[i].Err = reason.Error(codes.Unavailable, reason.NoQuorum,
					"the collection turned opaque and this node has not caught up with the leader to write its forms: nothing was handed out; retry, here or on another node")
			}
		}
		return
	}
	for i := range answers {
		if !waiting(i) {
			continue
		}
		c, err := s.node.FSM().OpaqueIdentityCodec(incs[i].GetDatabase(), incs[i].GetName())
		switch {
		case err != nil:
			out[i].Err = codecRefusal(err)
		case c != nil:
			out[i].Forms = &fsm.IdentityForms{Codec: c}
		}
	}
}
