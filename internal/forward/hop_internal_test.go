package forward

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
)

// lateBound is a hop's bounded context in the moment after its deadline passed and before
// the timer that cancels it fired, as a loaded machine stretches that moment: gRPC already
// calls the call's end DEADLINE_EXCEEDED (it checks the deadline against the clock), while
// the context is not done yet.
type lateBound struct {
	context.Context
	deadline time.Time
}

func (c lateBound) Deadline() (time.Time, bool) { return c.deadline, true }

// A hop whose bound passed is refused as the bound says (ErrLeaderChanged), even when the
// call's error comes back before the bound's timer has cancelled the hop.
func TestAHopBoundSeenByGRPCFirstIsStillTheBound(t *testing.T) {
	bound, fire := context.WithCancelCause(context.Background())
	h := &Hop{
		f:      &Forwarder{cfg: Config{Refuse: func(err error) error { return err }}},
		caller: context.Background(),
		ctx:    lateBound{bound, time.Now().Add(-time.Millisecond)},
		// The call reached the leader, so the refusal is ErrNoAnswer.
		peer: peer.Peer{Addr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 7000}},
	}
	timer := time.AfterFunc(20*time.Millisecond, func() { fire(ErrLeaderChanged) })
	defer timer.Stop()
	err := h.Error(status.Error(codes.DeadlineExceeded, "stream terminated by RST_STREAM with error code: CANCEL"))
	if !errors.Is(err, ErrNoAnswer) || !errors.Is(err, ErrLeaderChanged) {
		t.Fatalf("a hop whose bound passed answered %v; want ErrNoAnswer and ErrLeaderChanged", err)
	}
}
