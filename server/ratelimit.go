package server

import (
	"context"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// callBuckets enforce each database's max_calls_per_second on the IdService calls this node
// takes from its clients (a forwarded call was counted where it arrived). One token bucket per
// database, holding at most one second's worth.
type callBuckets struct {
	mu      sync.Mutex
	buckets map[string]*bucket
}

type bucket struct {
	tokens float64
	at     time.Time
}

// take reports whether a call of database may go now under a limit of rate a second.
func (c *callBuckets) take(database string, rate float64, now time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.buckets == nil {
		c.buckets = make(map[string]*bucket)
	}
	burst := max(rate, 1)
	b := c.buckets[database]
	if b == nil {
		b = &bucket{tokens: burst, at: now}
		c.buckets[database] = b
	}
	b.tokens = min(burst, b.tokens+now.Sub(b.at).Seconds()*rate)
	b.at = now
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

// limitCalls is a unary interceptor of the client port only (a forwarded call was counted
// where it arrived): an IdService call of a database with a calls-a-second limit past it is
// RESOURCE_EXHAUSTED. unary runs it as a step (intercept.go); on its own it is the step's unit
// under test.
func (s *interceptors) limitCalls(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	if err := s.checkCallRate(s.callOf(ctx, info.FullMethod, req)); err != nil {
		return nil, err
	}
	return handler(ctx, req)
}

// checkCallRate is limitCalls's check of c.
func (s *interceptors) checkCallRate(c *call) error {
	if c.role == "" {
		return nil
	}
	if c.dbErr != nil {
		return c.dbErr
	}
	db := c.folded()
	if rate := s.node.FSM().CallsPerSecond(db); rate > 0 && !s.calls.take(db, rate, s.cfg.Now()) {
		return status.Errorf(codes.ResourceExhausted, "database %q takes at most %g calls a second on each node; slow down or retry later", db, rate)
	}
	return nil
}
