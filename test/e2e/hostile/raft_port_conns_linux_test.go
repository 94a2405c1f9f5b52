//go:build linux

package hostile

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
)

const (
	raftPortIdleConns = 10_000 // idle connections opened to the Raft port
	raftPortNodeFiles = 2048   // the node's file-descriptor limit in the test: below them
	raftPortDialers   = 64
	raftPortDialWait  = 2 * time.Second // one dial; a full accept queue leaves it waiting
	raftPortCalls     = 20              // identity calls from new clients meanwhile
)

// The Raft port bounds its connections like the client port. Without a
// bound, connections that say nothing were each held for the hello's wait (10 s), and 10,000
// of them took every file descriptor a node had: no new client, peer or file got one. With the
// node limited to raftPortNodeFiles descriptors, 10,000 idle connections to its Raft port
// leave identities flowing to clients that connect meanwhile.
func TestRaftPortIdleConnectionsLeaveIdentitiesFlowing(t *testing.T) {
	var own syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &own); err != nil {
		t.Fatal(err)
	}
	if own.Cur < raftPortIdleConns+1000 {
		t.Skipf("this test process may open %d files; the test holds %d connections", own.Cur, raftPortIdleConns)
	}
	p, _ := e2etest.StartSingle(t)
	cmd, _ := p.Current()
	limitFiles(t, cmd.Process.Pid, raftPortNodeFiles)

	var (
		mu    sync.Mutex
		conns []net.Conn
		wg    sync.WaitGroup
		next  = make(chan struct{})
	)
	t.Cleanup(func() {
		for _, c := range conns {
			_ = c.Close()
		}
	})
	for range raftPortDialers {
		wg.Go(func() {
			for range next {
				c, err := net.DialTimeout("tcp", p.RaftAddr, raftPortDialWait)
				if err != nil {
					continue // the node's accept queue is full: the kernel refuses, as it should
				}
				mu.Lock()
				conns = append(conns, c)
				mu.Unlock()
			}
		})
	}
	for range raftPortIdleConns {
		next <- struct{}{}
	}
	close(next)
	wg.Wait()
	t.Logf("%d of %d idle connections to the Raft port were made", len(conns), raftPortIdleConns)
	if len(conns) <= raftPortNodeFiles {
		t.Fatalf("only %d idle connections were made: too few to take the node's %d descriptors", len(conns), raftPortNodeFiles)
	}
	e2etest.Eventually(t, e2etest.RPCTimeout, "the Raft port's refusals in the log", func() error {
		if !strings.Contains(p.Logs.String(), "listener=raft") {
			return errors.New(`no "closed connections over the listener's bound" for listener=raft`)
		}
		return nil
	})

	for i := range raftPortCalls {
		conn := e2etest.DialConn(t, p.GRPCAddr)
		ctx, cancel := context.WithTimeout(context.Background(), e2etest.RPCTimeout)
		_, err := idnodev1.NewIdServiceClient(conn).NextIdentity(ctx, &idnodev1.NextIdentityRequest{Name: "flowing"})
		cancel()
		_ = conn.Close()
		if err != nil {
			t.Fatalf("identity call %d from a new client, with %d idle connections to the Raft port: %v", i+1, len(conns), err)
		}
	}
}

// limitFiles sets process pid's file-descriptor limit (soft and hard) to n.
func limitFiles(t *testing.T, pid, n int) {
	t.Helper()
	lim := syscall.Rlimit{Cur: uint64(n), Max: uint64(n)}
	if _, _, errno := syscall.RawSyscall6(syscall.SYS_PRLIMIT64, uintptr(pid), uintptr(syscall.RLIMIT_NOFILE),
		uintptr(unsafe.Pointer(&lim)), 0, 0, 0); errno != 0 {
		t.Fatalf("prlimit(%d, RLIMIT_NOFILE, %d): %v", pid, n, errno)
	}
}
