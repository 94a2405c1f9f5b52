package forward

import (
	"errors"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/connectivity"
)

// When a partition heals, a connection that gRPC was redialling into it comes back only at
// gRPC's own pace: a dial under way waits for its connect timeout (a second: a firewall that
// drops packets drops the dial's SYN too) and a failed attempt for its backoff (up to half a
// second) before the next, so the first call relayed after the heal could wait up to one and
// a half seconds for a connection that would come up at once. When this node learns that the
// other node is reachable again (Raft hears from it as the leader, after none or another),
// revive stops waiting: it ends the dial under way, which was made before the heal, and makes
// gRPC skip its backoff and dial now. A dial that was about to succeed costs one more, a round
// trip.
//
// Only a connection that gRPC is redialling after a failure (TRANSIENT_FAILURE) is revived. A
// first attempt (CONNECTING) is left alone: calls wait for it, as they do after a failover for
// the connection to the new leader, and ending it would fail them. In TRANSIENT_FAILURE gRPC
// fails calls at once instead of making them wait.
//
// An attempt past its dial, in its handshake, is not ended: gRPC gives no sign of the
// handshake's end that revive could check and act on at once, so closing the connection could
// close one that had just come up and taken a call. Such an attempt (behind a proxy or a load
// balancer that accepts connections for a node it cannot reach) ends at the connect timeout.

// errRevived ends a dial begun before its link was revived.
var errRevived = errors.New("the connection attempt was made before the node was heard from again")

// reviveEvery is how often revive tells gRPC to skip its backoff until a new dial begins:
// the attempt it ended fails a moment later, and only then does gRPC enter the backoff to skip.
const reviveEvery = 5 * time.Millisecond

// revive makes cc dial the other node again now: when it is idle, by connecting; when gRPC is
// redialling it after a failure, by ending the dial under way and skipping gRPC's backoff
// until a new dial begins, within the link timeout.
func (l *link) revive(cc *grpc.ClientConn) {
	switch cc.GetState() {
	case connectivity.Idle:
		cc.Connect()
		return
	case connectivity.TransientFailure:
	default:
		return
	}
	if !l.reviving.CompareAndSwap(false, true) {
		return
	}
	l.mu.Lock()
	begun := l.dials.Load()
	if l.abort != nil {
		l.abort(errRevived)
	}
	l.mu.Unlock()
	go func() {
		defer l.reviving.Store(false)
		t := time.NewTicker(reviveEvery)
		defer t.Stop()
		for end := time.Now().Add(l.timeout); l.dials.Load() == begun && time.Now().Before(end); <-t.C {
			if s := cc.GetState(); s == connectivity.Ready || s == connectivity.Shutdown {
				return
			}
			cc.ResetConnectBackoff()
		}
	}()
}
