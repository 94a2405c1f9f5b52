package server_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math"
	"regexp"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/idnode/idnode/fsm"
	"github.com/idnode/idnode/node"
	"github.com/idnode/idnode/opaque"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/reason"
	"github.com/idnode/idnode/server"
)

// opaqueAdminToken is the admin token of the opaque tests' clusters: with one configured, a
// call from this machine is not an admin's unless it carries it.
const opaqueAdminToken = "opaque-admin"

// formPattern is an identity form of collection orders: 13 upper-case Crockford symbols.
var formPattern = regexp.MustCompile(`^[0-9A-HJKMNP-TV-Z]{13}$`)

// opaqueCluster is a 3-node cluster with an admin token, and the clients of its nodes.
type opaqueCluster struct {
	*testCluster
	leader    string
	followers []string
	ids       map[string]idnodev1.IdServiceClient
	admin     map[string]idnodev1.ClusterServiceClient
}

// newVirtualOpaqueCluster is an opaqueCluster for a test in a testing/synctest bubble.
func newVirtualOpaqueCluster(t *testing.T) *opaqueCluster {
	t.Helper()
	return opaqueClusterOf(t, newVirtualTestClusterConfigured(t, 3, func(c *node.Config) { c.ServerConfig = withOpaqueAdminToken }))
}

func withOpaqueAdminToken(sc server.Config) server.Config {
	sc.AdminToken = opaqueAdminToken
	return sc
}

func opaqueClusterOf(t *testing.T, c *testCluster) *opaqueCluster {
	t.Helper()
	leader := c.waitLeader(startupTimeout, c.Tags()...)
	c.waitServing(startupTimeout, c.Tags()...)
	oc := &opaqueCluster{testCluster: c, leader: leader, followers: without(c.Tags(), leader),
		ids: map[string]idnodev1.IdServiceClient{}, admin: map[string]idnodev1.ClusterServiceClient{}}
	for _, tag := range c.Tags() {
		cc := c.Dial(t, tag)
		oc.ids[tag], oc.admin[tag] = idnodev1.NewIdServiceClient(cc), idnodev1.NewClusterServiceClient(cc)
	}
	return oc
}

// asAdmin is ctx carrying the cluster's admin token.
func asAdmin(ctx context.Context) context.Context {
	return metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+opaqueAdminToken)
}

// keyOn is database db's opaque key in node tag's state, nil while it has none.
func (oc *opaqueCluster) keyOn(tag, db string) []byte {
	setting, ok := oc.Node(tag).Node.FSM().Opaque(db)
	if !ok {
		return nil
	}
	return setting.Key
}

// keyAnswered waits until node tag's state holds database db's opaque key, checks that it has
// the fingerprint a MakeOpaque answered, and returns it. The leader that answered held the key
// then; tag, the test's leader at the start, may have lost the lead since on a loaded machine
// and apply the key a moment later.
func (oc *opaqueCluster) keyAnswered(tag, db, fingerprint string) []byte {
	oc.t.Helper()
	var key []byte
	waitFor(oc.t, fmt.Sprintf("node %s to hold the opaque key of %s", tag, db), convergeTimeout, func() (bool, string) {
		key = oc.keyOn(tag, db)
		return key != nil, "no key yet"
	})
	if got := fsm.OpaqueKeyFingerprint(key); got != fingerprint {
		oc.t.Fatalf("node %s holds a key of %s with fingerprint %s, not the %s MakeOpaque answered", tag, db, got, fingerprint)
	}
	return key
}

// createDatabase creates database name through node tag, retrying UNAVAILABLE as
// retryUnavailable does. CreateDatabase carries no request_id, so once an attempt's outcome
// was unknown, ALREADY_EXISTS from a later one is that attempt's doing.
func (oc *opaqueCluster) createDatabase(ctx context.Context, tag, name string) {
	oc.t.Helper()
	unknown := false
	err := retryUnavailable(func() error {
		_, err := oc.admin[tag].CreateDatabase(asAdmin(ctx), &idnodev1.CreateDatabaseRequest{Name: name})
		unknown = unknown || reason.Of(err) == reason.OutcomeUnknown
		return err
	})
	if err != nil && (!unknown || status.Code(err) != codes.AlreadyExists) {
		oc.t.Fatalf("CreateDatabase(%s) via %s: %v", name, tag, err)
	}
}

// refusedWith checks that err is code with reason why.
func refusedWith(t *testing.T, what string, err error, code codes.Code, why string) {
	t.Helper()
	if status.Code(err) != code || reason.Of(err) != why {
		t.Fatalf("%s: %v (reason %q), want %v %s", what, err, reason.Of(err), code, why)
	}
}

// decodeForms reads ids, each prefix and a form, back to their values under codec c.
func decodeForms(t *testing.T, c *opaque.Codec, prefix string, ids []string) []int64 {
	t.Helper()
	out := make([]int64, len(ids))
	for i, id := range ids {
		form, ok := strings.CutPrefix(id, prefix)
		if !ok || !formPattern.MatchString(form) {
			t.Fatalf("ID %q is not %q and 13 upper-case Crockford symbols", id, prefix)
		}
		v, err := c.Decode(form)
		if err != nil {
			t.Fatalf("ID %q does not decode under the database's key: %v", id, err)
		}
		out[i] = v
	}
	return out
}

// TestOpaqueCollections runs in virtual time: a leader lost to CPU starvation failed its calls
// under a load average above 30. Its steps share one cluster, and a bubble may not call t.Run.
func TestOpaqueCollections(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		oc := newVirtualOpaqueCluster(t)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		admin := asAdmin(ctx)
		leader, follower := oc.leader, oc.followers[0]
		if _, err := oc.admin[follower].CreateDatabase(admin, &idnodev1.CreateDatabaseRequest{Name: "shop"}); err != nil {
			t.Fatal(err)
		}
		// Plain IDs before the switch: orders' counter at 3.
		if _, err := oc.ids[leader].Generate(ctx, &idnodev1.GenerateRequest{Id: "orders|", Count: 3, Database: "shop"}); err != nil {
			t.Fatal(err)
		}

		step(t, "MakeOpaque waits for cluster version 5", func(t *testing.T) {
			waitVersionsRecorded(t, oc.testCluster, leader)
			if _, err := fsm.Propose(ctx, oc.Node(leader).Node, fsm.ProposeSetClusterVersion, &raftv1.SetClusterVersion{Version: 4}); err != nil {
				t.Fatalf("lowering the version before any version-5 command: %v", err)
			}
			_, err := oc.admin[follower].MakeOpaque(admin, &idnodev1.MakeOpaqueRequest{Database: "shop", Collections: []string{"orders"}})
			refusedSaying(t, "MakeOpaque at cluster version 4", err, "cluster version 5")
			if key := oc.keyOn(leader, "shop"); key != nil {
				t.Fatalf("a refused MakeOpaque left a key")
			}
			if _, err := oc.admin[leader].SetClusterVersion(admin, &idnodev1.SetClusterVersionRequest{Version: fsm.CurrentVersion}); err != nil {
				t.Fatal(err)
			}
		})

		var key []byte
		step(t, "MakeOpaque is an admin call, idempotent, with one key on every node", func(t *testing.T) {
			_, err := oc.admin[leader].MakeOpaque(ctx, &idnodev1.MakeOpaqueRequest{Database: "shop", Collections: []string{"orders"}})
			if code := status.Code(err); code != codes.Unauthenticated && code != codes.PermissionDenied {
				t.Fatalf("MakeOpaque without the admin token: %v, want UNAUTHENTICATED", err)
			}
			if oc.keyOn(leader, "shop") != nil {
				t.Fatal("a refused MakeOpaque made a key")
			}
			first, err := oc.admin[follower].MakeOpaque(admin, &idnodev1.MakeOpaqueRequest{Database: "Shop", Collections: []string{"Orders"}})
			if err != nil {
				t.Fatal(err)
			}
			if first.GetDatabase() != "shop" || strings.Join(first.GetCollections(), ",") != "orders" || first.GetNumeric() || len(first.GetKeyFingerprint()) != 16 {
				t.Fatalf("MakeOpaque answered %v; want shop, [orders], not numeric, a 16-hex-digit fingerprint", first)
			}
			again, err := oc.admin[leader].MakeOpaque(admin, &idnodev1.MakeOpaqueRequest{Database: "shop", Collections: []string{"orders", "Invoices", "orders"}})
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(again.GetCollections(), ",") != "invoices,orders" || again.GetKeyFingerprint() != first.GetKeyFingerprint() {
				t.Fatalf("MakeOpaque again answered %v; want [invoices orders] under the first key %s", again, first.GetKeyFingerprint())
			}
			key = oc.keyOn(leader, "shop")
			if len(key) != fsm.OpaqueKeyLen || fsm.OpaqueKeyFingerprint(key) != first.GetKeyFingerprint() || bytes.Count(key, key[:1]) == len(key) {
				t.Fatalf("the leader's key is %d bytes with fingerprint %s; want %d random bytes with the answered %s",
					len(key), fsm.OpaqueKeyFingerprint(key), fsm.OpaqueKeyLen, first.GetKeyFingerprint())
			}
			waitFor(t, "every node holds the leader's key", convergeTimeout, func() (bool, string) {
				for _, tag := range oc.Tags() {
					if !bytes.Equal(oc.keyOn(tag, "shop"), key) {
						return false, "node " + tag + " does not"
					}
				}
				return true, ""
			})
			_, err = oc.admin[leader].MakeOpaque(admin, &idnodev1.MakeOpaqueRequest{Database: "shop"})
			refusedWith(t, "MakeOpaque naming nothing", err, codes.InvalidArgument, reason.InvalidInput)
			_, err = oc.admin[leader].MakeOpaque(admin, &idnodev1.MakeOpaqueRequest{Database: "nowhere", Collections: []string{"orders"}})
			if status.Code(err) != codes.NotFound {
				t.Fatalf("MakeOpaque of a database that does not exist: %v, want NOT_FOUND", err)
			}
		})

		codec, err := opaque.NewIdentityCodec(key, "orders")
		if err != nil {
			t.Fatal(err)
		}

		step(t, "Generate answers N forms of consecutive values, the same on every node", func(t *testing.T) {
			const n = 25
			var all []int64
			for _, tag := range []string{leader, follower, oc.followers[1]} {
				resp, err := oc.ids[tag].Generate(ctx, &idnodev1.GenerateRequest{Id: "Orders|", Count: n, Database: "shop"})
				if err != nil {
					t.Fatalf("node %s: %v", tag, err)
				}
				if len(resp.GetIds()) != n {
					t.Fatalf("node %s answered %d IDs, want %d", tag, len(resp.GetIds()), n)
				}
				values := decodeForms(t, codec, "Orders/", resp.GetIds())
				for i, v := range values {
					if v != values[0]+int64(i) {
						t.Fatalf("node %s: values %v are not consecutive", tag, values)
					}
					// The form the leader would write for the value.
					if want, _ := codec.Encode(v); resp.GetIds()[i] != "Orders/"+want {
						t.Fatalf("node %s wrote %q for %d, the leader's key %q", tag, resp.GetIds()[i], v, want)
					}
				}
				all = append(all, values...)
			}
			if all[0] != 4 {
				t.Errorf("the first opaque value is %d; the plain IDs took 1 to 3, so want 4", all[0])
			}
			plain, err := oc.ids[follower].Generate(ctx, &idnodev1.GenerateRequest{Id: "users|", Count: 2, Database: "shop"})
			if err != nil || strings.Join(plain.GetIds(), ",") != "users/1,users/2" {
				t.Fatalf("a plain collection of the database: %v, %v; want users/1, users/2", plain.GetIds(), err)
			}
		})

		step(t, "a collection just made opaque answers forms on a follower at once", func(t *testing.T) {
			for i := range 10 {
				name := fmt.Sprintf("fresh%d", i)
				if _, err := oc.admin[leader].MakeOpaque(admin, &idnodev1.MakeOpaqueRequest{Database: "shop", Collections: []string{name}}); err != nil {
					t.Fatal(err)
				}
				tag := oc.followers[i%2]
				resp, err := oc.ids[tag].Generate(ctx, &idnodev1.GenerateRequest{Id: name + "|", Database: "shop"})
				if err != nil {
					t.Fatal(err)
				}
				c, _ := opaque.NewIdentityCodec(key, name)
				if got := decodeForms(t, c, name+"/", resp.GetIds()); got[0] != 1 {
					t.Fatalf("node %s: the first ID of %s is value %d, want 1", tag, name, got[0])
				}
			}
		})

		step(t, "NextIdentity is refused on an opaque collection", func(t *testing.T) {
			for _, tag := range oc.Tags() {
				_, err := oc.ids[tag].NextIdentity(admin, &idnodev1.NextIdentityRequest{Name: "ORDERS", Database: "shop"})
				refusedWith(t, "NextIdentity via "+tag, err, codes.FailedPrecondition, reason.OpaqueCollection)
				if msg := status.Convert(err).Message(); !strings.Contains(msg, `"ORDERS|"`) || !strings.Contains(msg, "shop") {
					t.Errorf("the refusal %q does not say how to get the IDs", msg)
				}
			}
			if _, err := oc.ids[follower].NextIdentity(ctx, &idnodev1.NextIdentityRequest{Name: "users", Database: "shop"}); err != nil {
				t.Fatalf("NextIdentity of a plain collection: %v", err)
			}
		})

		step(t, "ListIdentities shows an opaque value to an admin only", func(t *testing.T) {
			want := oc.Node(leader).Node.FSM().Identity("shop", "orders")
			for _, tc := range []struct {
				who  string
				ctx  context.Context
				show bool
			}{{"a client", ctx, false}, {"an admin", admin, true}} {
				resp, err := oc.ids[follower].ListIdentities(tc.ctx, &idnodev1.ListIdentitiesRequest{Database: "shop"})
				if err != nil {
					t.Fatal(err)
				}
				got := map[string]*idnodev1.Identity{}
				for _, id := range resp.GetIdentities() {
					got[id.GetName()] = id
				}
				orders, users := got["orders"], got["users"]
				if orders == nil || !orders.GetOpaque() || users == nil || users.GetOpaque() || users.GetValue() != 3 {
					t.Fatalf("%s listed %v; want orders opaque and users plain at 3", tc.who, resp.GetIdentities())
				}
				if shown := orders.GetValue() == want; shown != tc.show || (!tc.show && orders.GetValue() != 0) {
					t.Errorf("%s sees orders at %d (the counter is at %d); shown: %v, want %v", tc.who, orders.GetValue(), want, shown, tc.show)
				}
			}
		})

		step(t, "Explain reads a form back for an admin only", func(t *testing.T) {
			form, _ := codec.Encode(5)
			for _, tag := range oc.Tags() {
				out, err := oc.ids[tag].Explain(admin, &idnodev1.ExplainRequest{Id: "orders/" + form, Database: "shop"})
				if err != nil {
					t.Fatal(err)
				}
				if out.GetKind() != "identity" || !out.GetOpaque() || out.GetNumber() != "5" || out.GetPrefix() != "orders/" {
					t.Fatalf("node %s explained %v to an admin; want identity 5 of orders/, opaque", tag, out)
				}
				out, err = oc.ids[tag].Explain(ctx, &idnodev1.ExplainRequest{Id: "orders/" + strings.ToLower(form), Database: "shop"})
				if err != nil {
					t.Fatal(err)
				}
				if out.GetKind() != "identity" || !out.GetOpaque() || out.GetNumber() != "" || out.GetValue() != 0 ||
					!strings.Contains(strings.Join(out.GetNotes(), " "), "admin only") {
					t.Fatalf("node %s explained %v to a client; want an opaque identity with no value and a note", tag, out)
				}
			}
			// In the default database orders is plain: the same text is no ID of it.
			if out, err := oc.ids[leader].Explain(admin, &idnodev1.ExplainRequest{Id: "orders/" + form}); err != nil || out.GetOpaque() {
				t.Fatalf("Explain in the default database: %v, %v; want a plain reading", out, err)
			}
			// A plain ID from before the switch is still read as one.
			if out, err := oc.ids[leader].Explain(ctx, &idnodev1.ExplainRequest{Id: "orders/2", Database: "shop"}); err != nil || out.GetOpaque() || out.GetNumber() != "2" {
				t.Fatalf("Explain of a plain ID from before the switch: %v, %v", out, err)
			}
		})

		step(t, "Explain refuses what is no form of the collection", func(t *testing.T) {
			for _, bad := range []string{"orders/ABC", "orders/KC6HECSWE6SX", "orders/KC6HECSWE6SX77", "orders/KC6HECSWE6SXU", "orders/KC6HECSWE6SX*"} {
				_, err := oc.ids[follower].Explain(admin, &idnodev1.ExplainRequest{Id: bad, Database: "shop"})
				refusedWith(t, "Explain("+bad+")", err, codes.InvalidArgument, reason.NotOpaqueForm)
			}
			other := bytes.Repeat([]byte{0x5a}, 32)
			foreign, _ := opaque.NewIdentityCodec(other, "orders")
			refused := 0
			for v := int64(1); v <= 40; v++ {
				form, _ := foreign.Encode(v)
				_, inRange := codec.Decode(form)
				_, err := oc.ids[follower].Explain(ctx, &idnodev1.ExplainRequest{Id: "orders/" + form, Database: "shop"})
				switch {
				case inRange != nil:
					refusedWith(t, "a form under another key", err, codes.InvalidArgument, reason.NotOpaqueForm)
					refused++
				case err != nil:
					t.Fatalf("a foreign form that decodes in range under the key was refused: %v", err)
				}
			}
			if refused < 20 { // three in four are out of range; 20 of 40 fails once in about 2^20 keys
				t.Errorf("only %d of 40 forms made under another key were refused", refused)
			}
		})

		step(t, "no answer holds the key", func(t *testing.T) {
			var answers []proto.Message
			for _, tag := range oc.Tags() {
				dbs, err := oc.admin[tag].ListDatabases(admin, &idnodev1.ListDatabasesRequest{})
				if err != nil {
					t.Fatal(err)
				}
				for _, d := range dbs.GetDatabases() {
					if d.GetName() == "shop" && (d.GetOpaqueKeyFingerprint() != fsm.OpaqueKeyFingerprint(key) || !strings.Contains(strings.Join(d.GetOpaqueCollections(), ","), "orders")) {
						t.Errorf("node %s lists shop as %v", tag, d)
					}
				}
				st, err := oc.admin[tag].Status(admin, &idnodev1.StatusRequest{})
				if err != nil {
					t.Fatal(err)
				}
				cv, err := oc.admin[tag].ClusterVersion(admin, &idnodev1.ClusterVersionRequest{})
				if err != nil {
					t.Fatal(err)
				}
				who, err := oc.admin[tag].WhoAmI(admin, &idnodev1.WhoAmIRequest{})
				if err != nil {
					t.Fatal(err)
				}
				ids, err := oc.ids[tag].ListIdentities(admin, &idnodev1.ListIdentitiesRequest{Database: "shop"})
				if err != nil {
					t.Fatal(err)
				}
				made, err := oc.admin[tag].MakeOpaque(admin, &idnodev1.MakeOpaqueRequest{Database: "shop", Collections: []string{"orders"}})
				if err != nil {
					t.Fatal(err)
				}
				answers = append(answers, dbs, st, cv, who, ids, made)
			}
			for _, m := range answers {
				wire, _ := proto.Marshal(m)
				text, _ := protojson.Marshal(m)
				for _, leak := range [][]byte{key, []byte(hex.EncodeToString(key)), []byte(base64.StdEncoding.EncodeToString(key)), []byte(base64.RawURLEncoding.EncodeToString(key))} {
					if bytes.Contains(wire, leak) || bytes.Contains(text, leak) {
						t.Fatalf("a %T answer holds the key: %s", m, text)
					}
				}
			}
		})
	})
}

// Many callers through every node Generate on one opaque collection at once: no form twice,
// and the forms read back to as many distinct values, also when the leader changes meanwhile
// and callers retry.
func TestOpaqueGenerateUnderContention(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		oc := newVirtualOpaqueCluster(t)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		made, err := oc.admin[oc.followers[0]].MakeOpaque(asAdmin(ctx), &idnodev1.MakeOpaqueRequest{Collections: []string{"orders"}})
		if err != nil {
			t.Fatal(err)
		}
		const callers, calls, count = 8, 15, 4
		var mu sync.Mutex
		var all []string
		errs := make(chan error, callers*len(oc.Tags()))
		var wg sync.WaitGroup
		for _, tag := range oc.Tags() {
			for caller := range callers {
				wg.Go(func() {
					for call := range calls {
						req := &idnodev1.GenerateRequest{Id: "orders|", Count: count, RequestId: fmt.Sprintf("%s-%d-%d", tag, caller, call)}
						var resp *idnodev1.GenerateResponse
						err := retryUnavailable(func() (err error) {
							resp, err = oc.ids[tag].Generate(ctx, req)
							return err
						})
						if err != nil {
							errs <- fmt.Errorf("node %s: %w", tag, err)
							return
						}
						mu.Lock()
						all = append(all, resp.GetIds()...)
						mu.Unlock()
					}
				})
			}
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		key := oc.keyAnswered(oc.leader, "default", made.GetKeyFingerprint())
		codec, _ := opaque.NewIdentityCodec(key, "orders")
		forms, values := map[string]bool{}, map[int64]bool{}
		for i, v := range decodeForms(t, codec, "orders/", all) {
			if forms[all[i]] || values[v] {
				t.Fatalf("%q (value %d) was handed out twice", all[i], v)
			}
			forms[all[i]], values[v] = true, true
		}
		if want := len(oc.Tags()) * callers * calls * count; len(values) != want {
			t.Fatalf("%d distinct values, want %d", len(values), want)
		}
	})
}

// In an opaque-numeric database Generate answers 13-symbol forms of numeric IDs, a client may
// not lease a worker, and Explain reads a form back for an admin. Every call that goes through
// Raft is retried on UNAVAILABLE (retryUnavailable): the leader may step down on a loaded
// machine, and this test is not about that.
func TestOpaqueNumeric(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		oc := newVirtualOpaqueCluster(t)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		admin := asAdmin(ctx)
		leader, follower := oc.leader, oc.followers[0]
		for _, db := range []string{"num", "leased"} {
			oc.createDatabase(ctx, leader, db)
		}
		// A database that had a worker lease cannot turn numeric opaque.
		if err := retryUnavailable(func() error {
			_, err := oc.ids[follower].Generate(ctx, &idnodev1.GenerateRequest{Numeric: true, Database: "leased"})
			return err
		}); err != nil {
			t.Fatal(err)
		}
		err := retryUnavailable(func() error {
			_, err := oc.admin[follower].MakeOpaque(admin, &idnodev1.MakeOpaqueRequest{Database: "leased", Numeric: true})
			return err
		})
		refusedSaying(t, "MakeOpaque numeric after a lease", err, "leased")

		var made *idnodev1.OpaqueStatus
		if err := retryUnavailable(func() (err error) {
			made, err = oc.admin[follower].MakeOpaque(admin, &idnodev1.MakeOpaqueRequest{Database: "num", Numeric: true})
			return err
		}); err != nil {
			t.Fatal(err)
		}
		key := oc.keyAnswered(leader, "num", made.GetKeyFingerprint())
		codec, err := opaque.NewCodec(key, []byte(fsm.OpaqueNumericTweak), 0, math.MaxInt64)
		if err != nil {
			t.Fatal(err)
		}
		var form string
		for _, tag := range oc.Tags() {
			var resp *idnodev1.GenerateResponse
			if err := retryUnavailable(func() (err error) {
				resp, err = oc.ids[tag].Generate(ctx, &idnodev1.GenerateRequest{Numeric: true, Count: 5, Database: "num"})
				return err
			}); err != nil {
				t.Fatalf("node %s: %v", tag, err)
			}
			values := decodeForms(t, codec, "", resp.GetIds())
			if !strictlyIncreasing(values) {
				t.Fatalf("node %s: numeric forms read back to %v, not increasing", tag, values)
			}
			form = resp.GetIds()[0]
		}
		for _, tag := range oc.Tags() {
			err := retryUnavailable(func() error {
				_, err := oc.ids[tag].AcquireWorker(ctx, &idnodev1.AcquireWorkerRequest{Database: "num", Holder: "app", WorkerBits: 10, LeaseMs: 5000})
				return err
			})
			refusedWith(t, "a client's worker lease via "+tag, err, codes.FailedPrecondition, reason.OpaqueCollection)
			// The nodes' minters' holder names are reserved: a client that names itself so is
			// refused on every node, in any database, before anything reaches the leader.
			for _, holder := range []string{"node:A", fsm.NodeHolderPrefix + tag} {
				for _, db := range []string{"num", "leased"} {
					_, err := oc.ids[tag].AcquireWorker(ctx, &idnodev1.AcquireWorkerRequest{Database: db, Holder: holder, WorkerBits: 10, LeaseMs: 5000})
					refusedWith(t, fmt.Sprintf("a client's worker lease as %q in %s via %s", holder, db, tag), err, codes.InvalidArgument, reason.InvalidInput)
					if !strings.Contains(status.Convert(err).Message(), "reserved for the nodes' own minters") {
						t.Fatalf("the refusal of holder %q does not name the rule: %v", holder, err)
					}
				}
			}
		}
		if err := retryUnavailable(func() error {
			_, err := oc.ids[follower].AcquireWorker(ctx, &idnodev1.AcquireWorkerRequest{Database: "leased", Holder: "app", WorkerBits: 10, LeaseMs: 5000, RequestId: "app-leased"})
			return err
		}); err != nil {
			t.Fatalf("a client's lease in a plain database: %v", err)
		}

		v, _ := codec.Decode(form)
		out, err := oc.ids[follower].Explain(admin, &idnodev1.ExplainRequest{Id: form, Database: "num"})
		if err != nil {
			t.Fatal(err)
		}
		if out.GetKind() != "numeric" || !out.GetOpaque() || out.GetValue() != v || out.GetTime() == "" {
			t.Fatalf("Explain of a numeric form to an admin: %v; want numeric %d with its time", out, v)
		}
		out, err = oc.ids[follower].Explain(ctx, &idnodev1.ExplainRequest{Id: form, Database: "num"})
		if err != nil || out.GetValue() != 0 || out.GetTime() != "" || !out.GetOpaque() {
			t.Fatalf("Explain of a numeric form to a client: %v, %v; want opaque with no value or time", out, err)
		}
		for _, bad := range []string{"ZZZZZZZZZZZZZ", "YYYYYYYYYYYYY", "XXXXXXXXXXXXX", "WWWWWWWWWWWWW", "VVVVVVVVVVVVV", "TTTTTTTTTTTTT"} {
			_, err = oc.ids[follower].Explain(ctx, &idnodev1.ExplainRequest{Id: bad, Database: "num"})
			if _, inRange := codec.Decode(bad); inRange != nil {
				refusedWith(t, "Explain of 13 symbols that are no form of the database", err, codes.InvalidArgument, reason.NotOpaqueForm)
			} else if err != nil || !out.GetOpaque() {
				t.Fatalf("Explain of %s, a form in range: %v", bad, err)
			}
		}
	})
}

// step runs one named step of a test in a testing/synctest bubble, where t.Run panics: a
// failure's lines follow the step's name in the log.
func step(t *testing.T, name string, f func(t *testing.T)) {
	t.Helper()
	t.Logf("step: %s", name)
	f(t)
}
