package client

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// closeWaitBound is how long a test waits for a Close whose bound is far shorter: a Close
// that has not returned by then is not bounded.
const closeWaitBound = time.Minute

// With no node up, Close returns within its bound and without an error, whatever the context
// it is given: the HiLo numbers it held are counted and logged as a gap, and a worker it could
// not release is logged.
func TestCloseWithNoNodeUpIsBoundedAndQuiet(t *testing.T) {
	_, nodes, addrs := fakeCluster(t, "A", "B")
	var logs bytes.Buffer
	c := dialTest(t, addrs, WithCloseTimeout(200*time.Millisecond), WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	ctx := testCtx(t)
	if _, err := c.NextID(ctx, "orders"); err != nil {
		t.Fatal(err)
	}
	g, err := c.Generator("orders")
	if err != nil {
		t.Fatal(err)
	}
	held := g.Stats().RangeSize - 1
	numeric, err := c.NewNumericGenerator(ctx, NumericOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		n.srv.Stop()
	}

	closed := make(chan error)
	go func() {
		closed <- numeric.Close(context.Background())
		closed <- c.Close(context.Background())
	}()
	for _, what := range []string{"the numeric generator's", "the client's"} {
		select {
		case err := <-closed:
			if err != nil {
				t.Errorf("%s Close with no node up = %v; want nil (a gap is not an error)", what, err)
			}
		case <-time.After(closeWaitBound):
			t.Fatalf("%s Close with no node up has not returned after %v; its bound is 200 ms", what, closeWaitBound)
		}
	}
	if got := g.Stats().Unreturned; got < held {
		t.Errorf("Unreturned = %d; want at least the %d numbers left of the range", got, held)
	}
	for _, want := range []string{`tag=orders`, `numbers not given back on close`, `worker not released on close`} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("the client's log has no %q:\n%s", want, logs.String())
		}
	}
}

func TestWithCloseTimeoutMustBePositive(t *testing.T) {
	for _, d := range []time.Duration{0, -time.Second} {
		if _, err := Dial(context.Background(), []string{"127.0.0.1:1"}, WithCloseTimeout(d)); err == nil {
			t.Errorf("Dial with WithCloseTimeout(%v) succeeded; want an error", d)
		}
	}
}
