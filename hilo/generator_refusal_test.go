package hilo

import (
	"context"
	"errors"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/reason"
)

// refusingSource is a RangeSource whose NextHiLo is refused NO_QUORUM attempt after attempt,
// noting each refusal as the Go client does, until its context ends.
type refusingSource struct{ refused chan struct{} }

var errNoQuorum = reason.Error(codes.Unavailable, reason.NoQuorum, "test: no quorum")

func (s *refusingSource) NextHiLo(ctx context.Context, _ *idnodev1.NextHiLoRequest) (*idnodev1.NextHiLoResponse, error) {
	reason.Note(ctx, errNoQuorum)
	close(s.refused)
	<-ctx.Done()
	return nil, status.FromContextError(ctx.Err()).Err()
}

func (s *refusingSource) ReturnHiLo(context.Context, *idnodev1.ReturnHiLoRequest) (bool, error) {
	return false, errNoQuorum
}

// A caller whose deadline ends while it waits for a range gets DEADLINE_EXCEEDED, with the
// refusal that kept the range from coming as its reason.
func TestWaitForARangeKeepsTheRefusal(t *testing.T) {
	src := &refusingSource{refused: make(chan struct{})}
	g, err := NewGenerator(src, "receipts")
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		now, stop := context.WithCancel(context.Background())
		stop() // Close cancels the fetch in flight at once
		g.Close(now)
	}()
	g.beforeWait = func() { <-src.refused } // the fetch is refused before the caller's deadline ends
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = g.NextID(ctx)
	if code, why := status.Code(err), reason.Of(err); code != codes.DeadlineExceeded || why != reason.NoQuorum {
		t.Fatalf("code %v, reason %q; want DeadlineExceeded, NO_QUORUM: %v", code, why, err)
	}
	if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, errNoQuorum) {
		t.Errorf("errors.Is does not find the deadline and the refusal in %v", err)
	}
}
