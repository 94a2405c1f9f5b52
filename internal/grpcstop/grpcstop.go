// Package grpcstop stops gRPC servers the way a node stops: calls in flight may finish, within
// a bound, and are cut after it, so a call that never returns cannot hold the stop.
package grpcstop

import (
	"sync"
	"time"

	"google.golang.org/grpc"
)

// Gracefully lets the servers' calls in flight finish, within grace; then it stops them.
func Gracefully(grace time.Duration, servers ...*grpc.Server) {
	var wg sync.WaitGroup
	for _, gs := range servers {
		wg.Go(gs.GracefulStop)
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(grace):
		for _, gs := range servers {
			gs.Stop()
		}
	}
}
