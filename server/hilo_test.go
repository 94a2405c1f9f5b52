package server

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/cluster"
	"github.com/idnode/idnode/fsm"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// applyCounter is a fakeCluster that counts the commands proposed to it.
type applyCounter struct {
	*fakeCluster
	applies atomic.Int32
}

func (a *applyCounter) Apply(ctx context.Context, cmd []byte) (any, error) {
	a.applies.Add(1)
	return a.fakeCluster.Apply(ctx, cmd)
}

// A bad HiLo tag is INVALID_ARGUMENT naming the rule, on every HiLo call, before anything goes
// to Raft: "orders/" would print "orders//1-A". The cluster's separator is '/' here.
func TestBadHiLoTagsAreRefusedBeforeRaft(t *testing.T) {
	t.Parallel()
	// Whatever reaches Raft is answered "no quorum".
	fc := &applyCounter{fakeCluster: &fakeCluster{leader: true, fsm: fsm.New(), err: cluster.ErrNoQuorum}}
	s := New(Config{Tag: "A"}, fc, nil)
	t.Cleanup(s.Close)
	ctx := context.Background()
	next := func(tag, sep string) func() error {
		return func() error {
			_, err := s.ids.NextHiLo(ctx, &idnodev1.NextHiLoRequest{Tag: tag, Separator: sep})
			return err
		}
	}
	cases := []struct {
		name string
		call func() error
		rule string
	}{
		{"NextHiLo ending with the separator", next("orders/", ""), "ends with the separator '/'"},
		{"NextHiLo ending with the requested separator", next("orders-", "-"), "ends with the separator '-'"},
		{"NextHiLo ending with the cluster's, another requested", next("orders/", "-"), "ends with the separator '/'"},
		{"NextHiLo blank", next("  ", ""), "blank"},
		{"NextHiLo empty", next("", ""), "empty"},
		{"ReturnHiLo ending with the separator", func() error {
			_, err := s.ids.ReturnHiLo(ctx, &idnodev1.ReturnHiLoRequest{Tag: "orders/", End: 32, Last: 5})
			return err
		}, "ends with the separator '/'"},
		{"SeedHiLo ending with the separator", func() error {
			_, err := s.ids.SeedHiLo(ctx, &idnodev1.SeedHiLoRequest{Tag: "orders/", Max: 5000})
			return err
		}, "ends with the separator '/'"},
		{"SeedHiLo pipe", func() error {
			_, err := s.ids.SeedHiLo(ctx, &idnodev1.SeedHiLoRequest{Tag: "or|ders", Max: 5000})
			return err
		}, "pipe"},
		{"SeedHiLo negative", func() error {
			_, err := s.ids.SeedHiLo(ctx, &idnodev1.SeedHiLoRequest{Tag: "orders", Max: -1})
			return err
		}, "negative"},
	}
	for _, c := range cases {
		err := c.call()
		if status.Code(err) != codes.InvalidArgument || !strings.Contains(status.Convert(err).Message(), c.rule) {
			t.Errorf("%s: %v, want INVALID_ARGUMENT mentioning %q", c.name, err, c.rule)
		}
	}
	if n := fc.applies.Load(); n != 0 {
		t.Errorf("%d commands went to Raft for refused calls, want none", n)
	}
	// A good tag does go to Raft: the count above could have seen it.
	if _, err := s.ids.SeedHiLo(ctx, &idnodev1.SeedHiLoRequest{Tag: "orders-", Max: 5000}); status.Code(err) != codes.Unavailable || fc.applies.Load() != 1 {
		t.Errorf("SeedHiLo(orders-): %v after %d proposals; want UNAVAILABLE from the one proposal", err, fc.applies.Load())
	}
}
