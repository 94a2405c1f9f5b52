package cluster

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/client"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/reason"
	"github.com/idnode/idnode/test/e2e/e2etest"
)

// dialNodes is a Go client of the cluster's nodes in the given order (the first is tried first).
func dialNodes(t *testing.T, c *e2etest.Cluster, tags ...string) *client.Client {
	t.Helper()
	var addrs []string
	for _, tag := range tags {
		addrs = append(addrs, c.Node(tag).GRPCAddr)
	}
	cl, err := client.Dial(context.Background(), addrs, client.WithCallTimeout(2*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cl.Close(context.Background()) })
	return cl
}

// mustNext is the one ID Generate(request) answers.
func mustNext(t *testing.T, cl *client.Client, request string) string {
	t.Helper()
	ids, err := cl.Generate(e2etest.RPCCtx(t), request, 1)
	if err != nil || len(ids) != 1 {
		t.Fatalf("Generate(%q) = %q, %v", request, ids, err)
	}
	return ids[0]
}

// The book's scenario (Ayende, "Inside RavenDB"): a document stored by hand as products/1
// makes the identity products| answer products/2. Here the claim stands for the document, on
// a real three-node cluster, and keeps doing so after the leader is killed and after every
// node restarts.
func TestClaimedIDsAreSkippedByIdentities(t *testing.T) {
	t.Parallel()
	c := e2etest.StartCluster(t)
	cl := dialNodes(t, c, "A", "B", "C")

	if err := cl.Claim(e2etest.RPCCtx(t), "importer", "products/1"); err != nil {
		t.Fatal(err)
	}
	if got := mustNext(t, cl, "products|"); got != "products/2" {
		t.Fatalf("products| after claiming products/1 = %s, want products/2", got)
	}
	// Someone else's claim of the same ID, in any case, is refused and names the owner.
	err := cl.Claim(e2etest.RPCCtx(t), "web", "Products/1")
	if status.Code(err) != codes.AlreadyExists || reason.Of(err) != reason.Claimed || !strings.Contains(err.Error(), "importer") {
		t.Fatalf("a second claim of products/1 = %v; want ALREADY_EXISTS, reason CLAIMED, naming importer", err)
	}
	// An identity handed out cannot be claimed.
	if err := cl.Claim(e2etest.RPCCtx(t), "web", "products/2"); status.Code(err) != codes.AlreadyExists {
		t.Fatalf("claiming products/2, the identity handed out = %v; want ALREADY_EXISTS", err)
	}
	// Generate can claim a semantic ID in the same call.
	if _, err := cl.GenerateRaw(e2etest.RPCCtx(t), &idnodev1.GenerateRequest{Id: "products/3", Claim: true, Owner: "web"}); err != nil {
		t.Fatalf("Generate(products/3, claim): %v", err)
	}

	leader := c.Leader()
	c.Node(leader).Kill9()
	if got := mustNext(t, cl, "products|"); got != "products/4" {
		t.Fatalf("products| after the leader's kill = %s, want products/4 (3 is claimed)", got)
	}
	if err := cl.Claim(e2etest.RPCCtx(t), "importer", "products/5"); err != nil {
		t.Fatal(err)
	}
	c.Node(leader).Restart()
	c.WaitServing(leader)

	for _, p := range c.Nodes {
		p.Stop()
	}
	for _, p := range c.Nodes {
		p.Restart()
	}
	c.WaitServing(e2etest.ClusterTags...)
	if got := mustNext(t, cl, "products|"); got != "products/6" {
		t.Fatalf("products| after every node restarted = %s, want products/6 (5 is claimed)", got)
	}
	claims, err := cl.Claims(e2etest.RPCCtx(t), "PRODUCTS/1", "products/2", "products/3", "products/5")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, cl := range claims {
		got = append(got, cl.GetId()+"="+cl.GetOwner())
	}
	if want := "products/1=importer products/3=web products/5=importer"; strings.Join(got, " ") != want {
		t.Fatalf("claims after the restarts: %q, want %s", got, want)
	}

	// idctl speaks claims too.
	env := []string{"IDNODE_ADDR=" + e2etest.AddrsOf(c.Nodes...)}
	if out := e2etest.MustIdctl(t, env, "claim", "users/ayende", "--owner", "alice"); out != "claimed 1\n" {
		t.Errorf("idctl claim = %q", out)
	}
	e2etest.WantIdctlFailure(t, 1, env, []string{"claim", "USERS/AYENDE"}, "ALREADY_EXISTS", "alice")
	if out := e2etest.MustIdctl(t, env, "claims", "--prefix", "users/"); !strings.Contains(out, "users/ayende  alice") {
		t.Errorf("idctl claims --prefix users/ = %q", out)
	}
	e2etest.WantIdctlFailure(t, 1, env, []string{"release", "users/ayende", "--owner", "bob"}, "FAILED_PRECONDITION")
	if out := e2etest.MustIdctl(t, env, "release", "users/ayende"); out != "released 1 of 1\n" {
		t.Errorf("idctl release = %q", out)
	}
}

// Two clients on different nodes claim the same 10,000 IDs at once, many goroutines each,
// while a third takes identities of the same prefix: every ID goes to exactly one of them,
// and no identity is a claimed ID.
func TestConcurrentClaimsHaveOneWinner(t *testing.T) {
	t.Parallel()
	const (
		ids        = 10_000
		workers    = 8 // per claiming client
		identities = 500
	)
	c := e2etest.StartCluster(t)
	claimers := []*client.Client{dialNodes(t, c, "A", "B", "C"), dialNodes(t, c, "B", "C", "A")}
	taker := dialNodes(t, c, "C", "A", "B")

	var (
		mu     sync.Mutex
		won    = map[string][]string{} // ID → who got it
		errs   []error
		wg     sync.WaitGroup
		record = func(id, who string) {
			mu.Lock()
			won[id] = append(won[id], who)
			mu.Unlock()
		}
		fail = func(err error) {
			mu.Lock()
			errs = append(errs, err)
			mu.Unlock()
		}
	)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	for ci, cl := range claimers {
		order := rand.Perm(ids)
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				who := fmt.Sprintf("client%d", ci)
				for i := w; i < ids; i += workers {
					id := fmt.Sprintf("items/%d", order[i]+1)
					err := cl.Claim(ctx, who, id)
					switch {
					case err == nil:
						record(id, who)
					case status.Code(err) == codes.AlreadyExists:
					default:
						fail(fmt.Errorf("%s claiming %s: %w", who, id, err))
						return
					}
				}
			}()
		}
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for range identities {
			got, err := taker.Generate(ctx, "items|", 1)
			if err != nil {
				fail(fmt.Errorf("items|: %w", err))
				return
			}
			record(got[0], "identity")
		}
	}()
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	for n := 1; n <= ids; n++ {
		id := fmt.Sprintf("items/%d", n)
		if len(won[id]) != 1 {
			t.Errorf("%s went to %v; want exactly one", id, won[id])
		}
	}
	for id, who := range won {
		if len(who) != 1 {
			t.Errorf("%s went to %v", id, who)
		}
	}
}
