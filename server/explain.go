package server

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"google.golang.org/grpc/codes"

	"github.com/idnode/idnode/docid"
	"github.com/idnode/idnode/flake"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/reason"
)

// numericTimeFormat is how Explain writes a numeric ID's time: RFC 3339 with milliseconds,
// the precision of the ID.
const numericTimeFormat = "2006-01-02T15:04:05.000Z07:00"

// Explain says what an ID is from its text and, for an opaque ID, the database's opaque
// setting (opaqueexplain.go): every node answers it itself, without the leader.
func (s *idService) Explain(ctx context.Context, req *idnodev1.ExplainRequest) (*idnodev1.ExplainResponse, error) {
	id := req.GetId()
	if len(id) > docid.MaxLength {
		return nil, reason.Error(codes.InvalidArgument, reason.InvalidInput, fmt.Sprintf("id is %d bytes, at most %d", len(id), docid.MaxLength))
	}
	db, err := databaseOf(ctx, req.GetDatabase())
	if err != nil {
		return nil, err
	}
	if out, ok, err := s.forms().explain(ctx, db, id); ok {
		return out, err
	}
	if out, ok := explainNumeric(id); ok {
		return out, nil
	}
	sh, err := docid.ExplainID(id, s.cfg.Separator)
	if err != nil {
		return nil, toStatus(err)
	}
	out := &idnodev1.ExplainResponse{Kind: sh.Kind.String(), Prefix: sh.Prefix, Number: sh.Number, NodeTag: sh.NodeTag,
		GuidVersion: int32(sh.GUIDVersion), Notes: []string{"the database is not part of an ID: any database of the cluster may hold it"}}
	if !sh.GUIDTime.IsZero() {
		out.Time = sh.GUIDTime.Format(time.RFC3339Nano)
	}
	if sh.Note != "" {
		out.Notes = append(out.Notes, sh.Note)
	}
	if sh.Kind == docid.Semantic {
		out.Notes = append(out.Notes, "a semantic ID is the caller's own; it may look like any other kind")
	}
	return out, nil
}

// explainNumeric reads id as a numeric ID: decimal, or the fixed-width base62 (11 characters)
// and Crockford (13) forms, taken apart with the default layout.
func explainNumeric(id string) (*idnodev1.ExplainResponse, bool) {
	encoding, v, ok := decodeNumeric(id)
	if !ok {
		return nil, false
	}
	p, err := flake.DefaultLayout().Decompose(v)
	if err != nil {
		return nil, false
	}
	out := &idnodev1.ExplainResponse{Kind: "numeric", Encoding: encoding, Value: v, Layout: "default",
		Time: p.Time.UTC().Format(numericTimeFormat), Worker: uint32(p.Worker), Sequence: p.Sequence,
		Notes: []string{"read with the default layout (41 bits of ms since 2026-01-01, 10 worker bits, 12 sequence bits): the layout is not part of the ID",
			"the database is not part of an ID: any database of the cluster may hold it"}}
	if v <= 1<<53-1 {
		if js, err := flake.JSSafeLayout().Decompose(v); err == nil {
			out.Notes = append(out.Notes, "it fits 53 bits: if minted with the js-safe layout, "+js.String())
		}
	}
	if encoding != "decimal" {
		out.Notes = append(out.Notes, "read as "+encoding+"; it could also be a semantic ID of that length")
	}
	return out, true
}

// decodeNumeric reads id as a decimal int64 (digits only), else as base62 or Crockford by its
// length.
func decodeNumeric(id string) (encoding string, v int64, ok bool) {
	if id != "" && id[0] >= '0' && id[0] <= '9' {
		if v, err := strconv.ParseInt(id, 10, 64); err == nil {
			return "decimal", v, true
		}
	}
	if len(id) == 11 {
		if v, err := flake.DecodeBase62(id); err == nil {
			return "base62", v, true
		}
	}
	if len(id) == 13 {
		if v, err := flake.DecodeCrockford(id); err == nil {
			return "crockford", v, true
		}
	}
	return "", 0, false
}
