package hilo

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/status"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// unansweredReturns grants ranges as fakeSource does, but no return is ever answered: the
// call lasts until its context ends, as with every node down or silent.
type unansweredReturns struct{ *fakeSource }

func (unansweredReturns) ReturnHiLo(ctx context.Context, _ *idnodev1.ReturnHiLoRequest) (bool, error) {
	<-ctx.Done()
	return false, status.FromContextError(ctx.Err()).Err()
}

// Close returns within its close timeout when no return is answered, whatever the context it
// is given, and without an error: the numbers it held are a gap it counts and logs.
func TestCloseIsBoundedWhenNoReturnIsAnswered(t *testing.T) {
	var logs bytes.Buffer
	g, err := NewGenerator(unansweredReturns{newFakeSource()}, "orders",
		WithCloseTimeout(50*time.Millisecond), WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.NextID(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	held := g.Stats().RangeSize - 1
	closed := make(chan error)
	go func() { closed <- g.Close(context.Background()) }()
	select {
	case err := <-closed:
		if err != nil {
			t.Errorf("Close with no return answered = %v; want nil (a gap is not an error)", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Close with no return answered has not returned after a minute; its bound is 50 ms")
	}
	if got := g.Stats().Unreturned; got != held {
		t.Errorf("Stats.Unreturned = %d; want the %d numbers left of the range", got, held)
	}
	if !strings.Contains(logs.String(), "tag=orders") || !strings.Contains(logs.String(), "error=") {
		t.Errorf("the log does not name the tag and the error of the return:\n%s", logs.String())
	}
}
