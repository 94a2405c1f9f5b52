package e2etest

import (
	"context"
	"fmt"
	"strings"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// SwapBinary stops node tag cleanly, starts it again on bin with the same data dir and flags,
// and waits until it serves.
func (c *Cluster) SwapBinary(tag, bin string) {
	c.T.Helper()
	p := c.Node(tag)
	p.Stop()
	p.mu.Lock()
	p.bin = bin
	p.mu.Unlock()
	p.Restart()
	c.WaitServing(tag)
}

// Retried calls fn through each node in turn until it succeeds, as a client does: an error a
// client may retry (UNAVAILABLE, DEADLINE_EXCEEDED) moves to the next node, any other fails
// the test, and so does no answer within opBudget.
func (c *Cluster) Retried(what string, fn func(ctx context.Context, tag string) error) {
	c.T.Helper()
	err := WhileRetryable(opBudget, func(attempt int) error {
		tag := ClusterTags[attempt%len(ClusterTags)]
		ctx, cancel := context.WithTimeout(context.Background(), RPCTimeout)
		defer cancel()
		if err := fn(ctx, tag); err != nil {
			return fmt.Errorf("via %s (attempt %d): %w", tag, attempt+1, err)
		}
		return nil
	})
	if err != nil {
		c.T.Fatalf("%s: %v", what, err)
	}
}

func (c *Cluster) SeriesClient(tag string) idnodev1.SeriesServiceClient {
	return idnodev1.NewSeriesServiceClient(c.Conns[tag])
}

// NoneHalted fails the test if a node exited or logged a halt: the cluster version must keep
// every command a node does not know out of the log.
func (c *Cluster) NoneHalted(when string) {
	c.T.Helper()
	for _, p := range c.Nodes {
		if _, done := p.Current(); isClosed(done) {
			c.T.Fatalf("%s: node %s exited: %v", when, p.Tag, p.state)
		}
		if strings.Contains(p.Logs.String(), "HALT") {
			c.T.Fatalf("%s: node %s halted", when, p.Tag)
		}
	}
}
