package hostile

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/reason"
	"github.com/idnode/idnode/test/e2e/e2etest"
)

// U+202E, U+200B and a BOM were accepted in IDs (a BOM made "\ufeffusers" a
// counter of its own), and claims compared with strings.ToLower, so users/sam, users/ſam and
// users/ＳＡＭ were three owners. Format characters are refused by name; look-alikes under
// NFKC_Casefold are one ID. The Cyrillic users/ѕam is a confusable, not a case or width
// variant, and stays another ID (docs/decisions/0029-how-ids-compare.md).
func TestLookalikeIDsAreOneOrRefused(t *testing.T) {
	t.Parallel()
	_, c := e2etest.StartSingle(t)
	for _, id := range []string{"\ufeffusers|", "users/s\u200bam", "users/\u202emas", "orders\u2066/"} {
		_, err := c.Generate(e2etest.RPCCtx(t), &idnodev1.GenerateRequest{Id: id})
		if status.Code(err) != codes.InvalidArgument || reason.Of(err) != reason.InvalidInput || !strings.Contains(err.Error(), "Unicode category Cf") {
			t.Errorf("Generate(%q) = %v; want INVALID_ARGUMENT naming the format character", id, err)
		}
	}
	if _, err := c.Claim(e2etest.RPCCtx(t), &idnodev1.ClaimRequest{Ids: []string{"users/s\u200bam"}, Owner: "mallory"}); status.Code(err) != codes.InvalidArgument {
		t.Errorf("Claim(users/s\\u200bam) = %v; want INVALID_ARGUMENT", err)
	}

	if _, err := c.Claim(e2etest.RPCCtx(t), &idnodev1.ClaimRequest{Ids: []string{"users/sam"}, Owner: "alice"}); err != nil {
		t.Fatalf("Claim(users/sam): %v", err)
	}
	// A new cluster's leader moves it to NFKC_Casefold right after its first election; a
	// look-up of a look-alike finds alice's claim once it has.
	e2etest.Eventually(t, 10*time.Second, "claims compare under NFKC_Casefold", func() error {
		resp, err := c.GetClaims(e2etest.RPCCtx(t), &idnodev1.GetClaimsRequest{Ids: []string{"USERS/ＳＡＭ"}})
		if err != nil || len(resp.GetClaims()) != 1 || resp.GetClaims()[0].GetOwner() != "alice" {
			return fmt.Errorf("GetClaims(USERS/ＳＡＭ) = %v, %v", resp, err)
		}
		return nil
	})
	for _, lookalike := range []string{"users/ſam", "users/ＳＡＭ", "Users／Sam"} {
		_, err := c.Claim(e2etest.RPCCtx(t), &idnodev1.ClaimRequest{Ids: []string{lookalike}, Owner: "mallory"})
		if status.Code(err) != codes.AlreadyExists || reason.Of(err) != reason.Claimed || !strings.Contains(err.Error(), `"alice"`) {
			t.Errorf("Claim(%q) after alice's users/sam = %v; want ALREADY_EXISTS naming alice", lookalike, err)
		}
	}
	if _, err := c.Claim(e2etest.RPCCtx(t), &idnodev1.ClaimRequest{Ids: []string{"users/ѕam"}, Owner: "bob"}); err != nil {
		t.Errorf("Claim of the Cyrillic users/ѕam: %v; a confusable is another ID", err)
	}
	// Identities fold as claims do: a full-width claim is skipped by the identity.
	if _, err := c.Claim(e2etest.RPCCtx(t), &idnodev1.ClaimRequest{Ids: []string{"ＰＲＯＤＵＣＴＳ／１"}}); err != nil {
		t.Fatal(err)
	}
	e2etest.ExpectGenerate(t, c, "products|", "products/2")
}
