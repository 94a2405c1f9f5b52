package hilopool

import (
	"context"
	"log/slog"
	"testing"
	"time"
)

// laggingRecord is a cluster's record read from a replica that has applied no reservation to
// this node yet, whose start check answers when the test lets it.
type laggingRecord struct {
	*fakeRecord
	unseal chan struct{}
}

func (r *laggingRecord) Unseal(ctx context.Context, digest []byte) (map[Key]int64, bool, error) {
	select {
	case <-r.unseal:
	case <-ctx.Done():
		return nil, false, ctx.Err()
	}
	return r.fakeRecord.Unseal(ctx, digest)
}

func (r *laggingRecord) Reserved(Key) bool { return false }

// The start check forgets a pool read at start that the record does not show reserved to this
// node, but not one the cluster reserved in this run before the check answered: a node whose
// first grants of a tag came while its replica lagged kept no pool for a later cut-off.
func TestTheStartCheckKeepsAPoolReservedInThisRun(t *testing.T) {
	path := poolsPath(t)
	earlier := mustOpen(t, path)
	mustAdd(t, earlier, users, 1, 100) // a pool of another identity's file, or of a lost record
	carts := Key{Database: "default", Tag: "carts"}

	s := mustOpen(t, path)
	rec := &laggingRecord{fakeRecord: &fakeRecord{marks: map[Key]int64{}}, unseal: make(chan struct{})}
	m := NewMarked(s, rec, slog.Default())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); m.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })

	mustAdd(t, s, carts, 201, 300) // reserved through the log in this run, before the check answered
	close(rec.unseal)
	select {
	case <-m.checked:
	case <-time.After(10 * time.Second):
		t.Fatal("the pools' start check did not end within 10 s of the record's answer")
	}
	if got := s.Remaining(users); got != 0 {
		t.Errorf("the pool of users, read at start and not reserved to this node, holds %d numbers; want it forgotten", got)
	}
	if got := s.Remaining(carts); got != 100 {
		t.Errorf("the pool of carts, reserved in this run, holds %d numbers after the start check; want its 100", got)
	}
}
