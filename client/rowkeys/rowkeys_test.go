package rowkeys_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/client"
	"github.com/idnode/idnode/client/rowkeys"
	"github.com/idnode/idnode/reason"
	"github.com/idnode/idnode/test/e2e/e2etest"
)

func TestMain(m *testing.M) { e2etest.Main(m) }

// source starts a single idnode process and returns a Source on a client of it.
func source(t *testing.T) (*rowkeys.Source, *e2etest.Proc) {
	t.Helper()
	p, _ := e2etest.StartSingle(t)
	c, err := client.Dial(context.Background(), []string{p.GRPCAddr}, client.WithBackoff(client.Backoff{Initial: 10 * time.Millisecond, Max: 100 * time.Millisecond, Multiplier: 2}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// A node the test killed answers no return of a HiLo tail: bound the wait.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = c.Close(ctx)
	})
	s := rowkeys.New(c)
	t.Cleanup(func() { _ = s.Close(context.Background()) })
	return s, p
}

func ctxFor(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// Every strategy hands out as many keys as asked, each key once, in the form it promises.
func TestStrategies(t *testing.T) {
	s, _ := source(t)
	ctx := ctxFor(t, 30*time.Second)
	strs := map[rowkeys.Strategy]func(string) bool{
		rowkeys.HiLo:       func(id string) bool { return strings.HasPrefix(id, "orders/") && strings.HasSuffix(id, "-A") },
		rowkeys.Identity:   func(id string) bool { return strings.HasPrefix(id, "orders/") && !strings.Contains(id, "-") },
		rowkeys.ServerSide: func(id string) bool { return strings.HasPrefix(id, "orders/") && strings.HasSuffix(id, "-A") },
		rowkeys.Numeric:    func(id string) bool { n, err := strconv.ParseInt(id, 10, 64); return err == nil && n > 0 },
	}
	for st, ok := range strs {
		seen := map[string]bool{}
		for _, n := range []int{1, 7, 300} {
			ids, err := s.Strings(ctx, "orders", st, n)
			if err != nil || len(ids) != n {
				t.Fatalf("Strings(orders, %s, %d) = %d IDs, %v", st, n, len(ids), err)
			}
			for _, id := range ids {
				if !ok(id) || seen[id] {
					t.Fatalf("%s: ID %q is not of the strategy's form, or repeated", st, id)
				}
				seen[id] = true
			}
		}
	}
	for _, st := range []rowkeys.Strategy{rowkeys.HiLo, rowkeys.Identity, rowkeys.Numeric} {
		seen := map[int64]bool{}
		for _, n := range []int{1, 7, 300} {
			nums, err := s.Ints(ctx, "counters", st, n)
			if err != nil || len(nums) != n {
				t.Fatalf("Ints(counters, %s, %d) = %d numbers, %v", st, n, len(nums), err)
			}
			for _, v := range nums {
				if v < 1 || seen[v] {
					t.Fatalf("%s: number %d is not positive, or repeated", st, v)
				}
				seen[v] = true
			}
		}
	}
	if _, err := s.Ints(ctx, "counters", rowkeys.ServerSide, 1); !errors.Is(err, rowkeys.ErrNoIntegerServerSide) {
		t.Errorf("Ints(server) = %v, want ErrNoIntegerServerSide", err)
	}
	for _, n := range []int{0, rowkeys.MaxBatch + 1} {
		if _, err := s.Ints(ctx, "counters", rowkeys.HiLo, n); err == nil {
			t.Errorf("Ints(%d keys) succeeded", n)
		}
	}
}

// Keys the application set are checked, and claimed when asked: an integer key as
// "collection/N", which the collection's identity then skips.
func TestKeep(t *testing.T) {
	s, _ := source(t)
	ctx := ctxFor(t, 30*time.Second)
	if err := s.Keep(ctx, "orders", nil, []string{"orders/bad id/"}, nil); status.Code(err) != codes.InvalidArgument {
		t.Errorf("Keep of an invalid ID = %v, want INVALID_ARGUMENT", err)
	}
	if err := s.Keep(ctx, "invoices", nil, nil, []int64{0}); err == nil {
		t.Error("Keep of key 0 succeeded")
	}
	owner := "app"
	if err := s.Keep(ctx, "invoices", &owner, []string{"users/ayende"}, []int64{1, 2}); err != nil {
		t.Fatalf("Keep with claims: %v", err)
	}
	err := s.Keep(ctx, "orders", &owner, []string{"users/ayende"}, nil)
	var kerr *rowkeys.Error
	if reason.Of(err) != reason.Claimed || !errors.As(err, &kerr) || kerr.Collection != "orders" {
		t.Errorf("a second claim of users/ayende = %v, want a *rowkeys.Error with reason CLAIMED", err)
	}
	nums, err := s.Ints(ctx, "invoices", rowkeys.Identity, 2)
	if err != nil || nums[0] != 3 || nums[1] != 4 {
		t.Errorf("identities of invoices after claiming 1 and 2 = %v, %v; want 3, 4", nums, err)
	}
}

// A cluster that does not answer: the error is a *rowkeys.Error that wraps the client's, whose
// gRPC code and idnode reason are still there; after Close the Source refuses.
func TestUnreachableAndClosed(t *testing.T) {
	s, p := source(t)
	ctx := ctxFor(t, 30*time.Second)
	p.Kill9()
	short, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	_, err := s.Ints(short, "unreached", rowkeys.Identity, 3)
	var kerr *rowkeys.Error
	var nodes *client.NodesFailedError
	if !errors.As(err, &kerr) || !errors.As(err, &nodes) || status.Code(err) != codes.DeadlineExceeded {
		t.Fatalf("keys from a dead node = %v; want a *rowkeys.Error wrapping NodesFailedError, DEADLINE_EXCEEDED (the caller's deadline ended it)", err)
	}
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Strings(ctx, "orders", rowkeys.HiLo, 1); !errors.Is(err, rowkeys.ErrClosed) {
		t.Errorf("Strings after Close = %v, want ErrClosed", err)
	}
}
