package e2etest

// Opaque identities as the end-to-end tests read them: the shape of a form, and its value read
// back through Explain with the admin role, the operator's path (docs/opaque-ids.md). The chaos
// schedule of opaque identities (test/e2e/chaos/opaque) and the backup tests (test/e2e/ops)
// share them.

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/idnode/idnode/flake"
	"github.com/idnode/idnode/opaque"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// OpaqueForm checks that id is an opaque identity of prefix: the prefix as the caller spelled
// it, the separator sep, and opaque.IdentityLen symbols of Crockford's alphabet as the node
// writes them (upper case). It returns the symbols.
func OpaqueForm(id, prefix string, sep byte) (string, error) {
	head := prefix + string(sep)
	symbols, ok := strings.CutPrefix(id, head)
	if !ok || len(symbols) != opaque.IdentityLen {
		return "", fmt.Errorf("%q is not an opaque identity of %s: want %q and %d symbols", id, prefix, head, opaque.IdentityLen)
	}
	for _, c := range []byte(symbols) {
		if strings.IndexByte(flake.CrockfordAlphabet, c) < 0 {
			return "", fmt.Errorf("%q is not an opaque identity of %s: %q is not a symbol of Crockford's base 32", id, prefix, c)
		}
	}
	return symbols, nil
}

// OpaqueForms checks that ids are count opaque identities of prefix (OpaqueForm) and returns
// their symbols in the order answered.
func OpaqueForms(ids []string, prefix string, sep byte, count int64) ([]string, error) {
	if int64(len(ids)) != count {
		return nil, fmt.Errorf("Generate(%s|, count %d) returned %d IDs: %q", prefix, count, len(ids), ids)
	}
	out := make([]string, len(ids))
	for i, id := range ids {
		s, err := OpaqueForm(id, prefix, sep)
		if err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}

// ExplainOpaque reads the opaque identity id of database back to its counter value through
// Explain, which must be called with the admin role: the answer must say kind identity, opaque,
// and the value as its number.
func ExplainOpaque(ctx context.Context, ids idnodev1.IdServiceClient, database, id string) (int64, error) {
	resp, err := ids.Explain(ctx, &idnodev1.ExplainRequest{Id: id, Database: database})
	if err != nil {
		return 0, fmt.Errorf("Explain(%s) as admin: %w", id, err)
	}
	v, perr := strconv.ParseInt(resp.GetNumber(), 10, 64)
	if resp.GetKind() != "identity" || !resp.GetOpaque() || perr != nil || v < 1 {
		return 0, fmt.Errorf("Explain(%s) as admin = %v: want kind identity, opaque, and the counter value as its number", id, resp)
	}
	return v, nil
}
