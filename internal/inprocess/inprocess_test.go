package inprocess

import (
	"context"
	"errors"
	"net"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// gRPC works over the pipes, with many calls at once on one connection (as the HTTP gateway
// makes them), and a closed listener refuses new dials. It runs in a testing/synctest bubble,
// where a pipe's read waits as a bubble's goroutine may and time passes only while they all
// wait: on a starved CPU the 1,600 calls outlasted their deadline in real time.
func TestGRPCOverListener(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lis := Listen()
		gs := grpc.NewServer()
		healthpb.RegisterHealthServer(gs, health.NewServer())
		served := make(chan error, 1)
		go func() { served <- gs.Serve(lis) }()
		conn, err := grpc.NewClient("passthrough:///inprocess", grpc.WithContextDialer(lis.DialContext),
			grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			t.Fatal(err)
		}
		hc := healthpb.NewHealthClient(conn)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		const callers, calls = 32, 50
		errs := make(chan error, callers)
		var wg sync.WaitGroup
		for range callers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range calls {
					resp, err := hc.Check(ctx, &healthpb.HealthCheckRequest{})
					if err == nil && resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
						err = errors.New(resp.GetStatus().String())
					}
					if err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("health check over the in-process listener: %v", err)
		}
		_ = conn.Close()
		gs.Stop()
		if err := <-served; err != nil {
			t.Fatalf("Serve after Stop = %v", err)
		}
		if _, err := lis.DialContext(ctx, ""); !errors.Is(err, net.ErrClosed) {
			t.Fatalf("dial after Close = %v, want net.ErrClosed", err)
		}
		if _, err := lis.Accept(); !errors.Is(err, net.ErrClosed) {
			t.Fatalf("Accept after Close = %v, want net.ErrClosed", err)
		}
	})
}
