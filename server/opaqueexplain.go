package server

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"google.golang.org/grpc/codes"

	"github.com/idnode/idnode/docid"
	"github.com/idnode/idnode/flake"
	"github.com/idnode/idnode/fsm"
	"github.com/idnode/idnode/opaque"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/reason"
)

// explain reads id as an opaque ID of database db: under one of its opaque collections
// ("orders/" and 13 symbols), or, in an opaque-numeric database, 13 symbols alone. ok is false
// when id is neither, and Explain reads it as a plain ID. With the admin role (readsValues) a
// form reads back to its value; without, the answer says only that it is an opaque ID of the
// database. A string under an opaque collection that is no form of it is NOT_OPAQUE_FORM.
func (s opaqueForms) explain(ctx context.Context, db, id string) (out *idnodev1.ExplainResponse, ok bool, err error) {
	sep := s.cfg.Separator
	cut := strings.LastIndex(id, string(sep))
	if cut > 0 {
		collection, tail := id[:cut], id[cut+utf8.RuneLen(sep):]
		codec, err := s.codecAfterCatchUp(ctx, len(tail) == opaque.IdentityLen, func() (*opaque.Codec, error) {
			return s.node.FSM().OpaqueIdentityCodec(db, collection)
		})
		switch {
		case err != nil:
			return nil, true, codecRefusal(err)
		case codec == nil || plainUnderOpaque(tail, id, sep):
			return nil, false, nil
		}
		out, err := s.explainIdentityForm(ctx, db, codec, collection, tail)
		return out, true, err
	}
	if len(id) != opaque.IdentityLen {
		return nil, false, nil
	}
	codec, err := s.codecAfterCatchUp(ctx, true, func() (*opaque.Codec, error) { return s.node.FSM().OpaqueNumericCodec(db) })
	switch {
	case err != nil:
		return nil, true, codecRefusal(err)
	case codec == nil:
		return nil, false, nil
	}
	out, err = s.explainNumericForm(ctx, db, codec, id)
	return out, true, err
}

// codecAfterCatchUp is the codec codecOf finds for the ID (nil: the ID is no form here). When
// it finds none and the ID has a form's length (likely), this node first catches up with the
// leader: a setting just made may not be applied here yet.
func (s opaqueForms) codecAfterCatchUp(ctx context.Context, likely bool, codecOf func() (*opaque.Codec, error)) (*opaque.Codec, error) {
	var (
		codec *opaque.Codec
		err   error
	)
	known := func() bool {
		codec, err = codecOf()
		return codec != nil || err != nil
	}
	if known() || likely && s.knownAfterCatchUp(ctx, known) {
		return codec, err
	}
	return nil, nil
}

// plainUnderOpaque reports whether tail, after an opaque collection's name, is a plain ID of
// a shape Explain reads (an identity issued before the collection turned opaque, a HiLo or
// server-side ID of the same prefix) rather than a form: a plain identity under an opaque
// collection has at most 12 digits (fsm.OpaquePlainLimit), so 13 symbols are always a form.
func plainUnderOpaque(tail, id string, sep rune) bool {
	if len(tail) == opaque.IdentityLen {
		return false
	}
	sh, err := docid.ExplainID(id, sep)
	return err == nil && sh.Kind != docid.Semantic
}

// explainIdentityForm reads tail as a form of collection with the collection's codec c.
func (s opaqueForms) explainIdentityForm(ctx context.Context, db string, c *opaque.Codec, collection, tail string) (*idnodev1.ExplainResponse, error) {
	v, err := c.Decode(tail)
	if err != nil {
		return nil, reason.Error(codes.InvalidArgument, reason.NotOpaqueForm, fmt.Sprintf(
			"%q is not an opaque ID of collection %s of database %s: %v", collection+string(s.cfg.Separator)+tail, collection, fsm.DatabaseName(db), err))
	}
	out := &idnodev1.ExplainResponse{Kind: docid.Identity.String(), Prefix: collection + string(s.cfg.Separator), Opaque: true}
	if !s.readsValues(ctx, db) {
		out.Notes = []string{fmt.Sprintf("an opaque ID of collection %s of database %s: its value is shown to an admin only", collection, fsm.DatabaseName(db))}
		return out, nil
	}
	out.Number = strconv.FormatInt(v, 10)
	out.Notes = []string{fmt.Sprintf("an opaque ID of collection %s of database %s, read back with the database's key", collection, fsm.DatabaseName(db))}
	return out, nil
}

// explainNumericForm reads id as a numeric form of an opaque-numeric database with the
// database's numeric codec c.
func (s opaqueForms) explainNumericForm(ctx context.Context, db string, c *opaque.Codec, id string) (*idnodev1.ExplainResponse, error) {
	v, err := c.Decode(id)
	if err != nil {
		return nil, reason.Error(codes.InvalidArgument, reason.NotOpaqueForm, fmt.Sprintf(
			"%q is not an opaque numeric ID of database %s: %v", id, fsm.DatabaseName(db), err))
	}
	out := &idnodev1.ExplainResponse{Kind: "numeric", Encoding: "opaque", Opaque: true}
	if !s.readsValues(ctx, db) {
		out.Notes = []string{fmt.Sprintf("an opaque numeric ID of database %s: its value, time and worker are shown to an admin only", fsm.DatabaseName(db))}
		return out, nil
	}
	p, err := flake.DefaultLayout().Decompose(v)
	if err != nil {
		return nil, reason.Error(codes.InvalidArgument, reason.NotOpaqueForm, fmt.Sprintf(
			"%q decodes under database %s's key to %d, which is no numeric ID: %v", id, fsm.DatabaseName(db), v, err))
	}
	out.Value, out.Layout = v, "default"
	out.Time = p.Time.UTC().Format(numericTimeFormat)
	out.Worker, out.Sequence = uint32(p.Worker), p.Sequence
	out.Notes = []string{fmt.Sprintf("an opaque numeric ID of database %s, read back with the database's key", fsm.DatabaseName(db))}
	return out, nil
}
