package server

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/idnode/idnode/reason"
	"github.com/idnode/idnode/test/helpers/poll"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// sortedList is a listing source over sorted keys, as the FSM's: up to n keys after a key.
func sortedList(keys []string) func(after string, n int) ([]string, bool, error) {
	return func(after string, n int) ([]string, bool, error) {
		i, _ := slices.BinarySearch(keys, after)
		for i < len(keys) && keys[i] <= after {
			i++
		}
		end := min(i+n, len(keys))
		return keys[i:end], end < len(keys), nil
	}
}

func identityOf(k string) *idnodev1.Identity { return &idnodev1.Identity{Name: k, Value: 1} }
func keyOf(k string) string                  { return k }

// Pages of long names stop at maxAnswerBytes with a token, and paging on with the tokens
// yields every name once, in order (10,000 names of 2 KB once answered 5-7 MB).
func TestCollectPageStopsAtTheByteBound(t *testing.T) {
	t.Parallel()
	var keys []string
	for i := range 3000 {
		keys = append(keys, fmt.Sprintf("long-%05d-%s", i, strings.Repeat("x", 1980)))
	}
	list := sortedList(keys)
	var got []string
	after, pages := "", 0
	for ; pages < 100; pages++ {
		page, next, err := collectPage(maxPageSize, after, list, identityOf, keyOf)
		if err != nil {
			t.Fatal(err)
		}
		if size := proto.Size(&idnodev1.ListIdentitiesResponse{Identities: page, NextPageToken: next}); size > maxAnswerBytes {
			t.Fatalf("page %d: answer of %d bytes; want at most %d", pages, size, maxAnswerBytes)
		}
		for _, id := range page {
			got = append(got, id.GetName())
		}
		if next == "" {
			break
		}
		if _, after, err = pageOf(0, next); err != nil {
			t.Fatal(err)
		}
	}
	if !slices.Equal(got, keys) {
		t.Fatalf("paged through %d of %d names (or out of order)", len(got), len(keys))
	}
	if pages < 5 {
		t.Fatalf("%d pages for 6 MB of names; want each page under 1 MiB", pages+1)
	}
}

// Short names: a page holds what page_size asks, with a token only when more follow.
func TestCollectPageKeepsThePageSize(t *testing.T) {
	t.Parallel()
	keys := []string{"a", "b", "c", "d", "e"}
	page, next, err := collectPage(3, "", sortedList(keys), identityOf, keyOf)
	if err != nil || len(page) != 3 || next != pageToken("c") {
		t.Fatalf("first page: %v, %q, %v; want a, b, c and a token after c", page, next, err)
	}
	page, next, err = collectPage(3, "c", sortedList(keys), identityOf, keyOf)
	if err != nil || len(page) != 2 || next != "" {
		t.Fatalf("last page: %v, %q, %v; want d, e and no token", page, next, err)
	}
	page, next, err = collectPage(5, "", sortedList(keys), identityOf, keyOf)
	if err != nil || len(page) != 5 || next != "" {
		t.Fatalf("a page of exactly all: %v, %q, %v; want every key and no token", page, next, err)
	}
}

// The call count refuses past its bound with NODE_BUSY and gives a call's slot back when its
// context ends.
func TestCallCountBoundsCallsHeld(t *testing.T) {
	t.Parallel()
	c := &callCount{max: 2}
	ctx1, cancel1 := context.WithCancel(context.Background())
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	for _, ctx := range []context.Context{ctx1, ctx2} {
		if _, err := c.admit(ctx, nil); err != nil {
			t.Fatalf("a call within the bound: %v", err)
		}
	}
	_, err := c.admit(context.Background(), nil)
	if status.Code(err) != codes.ResourceExhausted || reason.Of(err) != reason.Busy {
		t.Fatalf("a call over the bound: %v; want RESOURCE_EXHAUSTED, NODE_BUSY", err)
	}
	cancel1()
	poll.Until(t, "the ended call's slot given back", 5*time.Second, time.Millisecond, func() error {
		if n := c.n.Load(); n != 1 {
			return fmt.Errorf("%d calls counted", n)
		}
		return nil
	})
	if _, err := c.admit(context.Background(), nil); err != nil {
		t.Fatalf("a call after one ended: %v", err)
	}
}
