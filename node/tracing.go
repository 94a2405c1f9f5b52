package node

import (
	"context"
	"fmt"
	"time"
)

// tracingFlush bounds how long a stopping node waits to send the spans it still holds: an
// OTLP receiver that is gone must not hold up the stop.
const tracingFlush = 2 * time.Second

// startTracing makes the node's tracing (Config.Tracing) and, at the stop, once the servers
// have stopped, sends the spans not yet exported.
func (n *Node) startTracing() error {
	if n.cfg.Tracing == nil {
		return nil
	}
	t, err := n.cfg.Tracing(n.cfg.Tag, n.log)
	if err != nil {
		return fmt.Errorf("tracing: %w", err)
	}
	if t == nil {
		return nil
	}
	n.tracing = t
	n.log.Info("tracing on: spans are exported over OTLP")
	n.atStop(func(*error) {
		ctx, cancel := context.WithTimeout(context.Background(), tracingFlush)
		defer cancel()
		if ferr := t.Shutdown(ctx); ferr != nil {
			n.log.Warn("tracing: spans not sent at the stop", "err", ferr)
		}
	})
	return nil
}
