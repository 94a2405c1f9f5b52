package forward

import (
	"errors"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/connectivity"
)

// When a partition heals, a connection that gRPC was redialling into it comes back only at
// gRPC's own pace: an attempt under way waits for its connect timeout (a second) and a failed
// one for its backoff (up to half a second) before the next, so the first call relayed after
// the heal could wait up to one and a half seconds for a connection that would come up at once.
// When this node learns that the other node is reachable again (Raft hears from it as the
// leader, after none or another), revive stops waiting: it ends the attempt under way, which
// was made before the heal, and makes gRPC skip its backoff and dial now. An attempt that was
// about to succeed costs one more dial, a round trip.

// errRevived ends a dial begun before its link was revived.
var errRevived = errors.New("the connection attempt was made before the node was heard from again")

// reviveEvery is how often revive tells gRPC to skip its backoff until a new dial begins:
// the attempt it ended fails a moment later, and only then does gRPC enter the backoff to skip.
const reviveEvery = 5 * time.Millisecond

// revive makes cc, unless it is connected, dial the other node again now: it ends the dial
// or handshake under way and skips gRPC's backoff until a new dial begins, within the link
// timeout.
func (l *link) revive(cc *grpc.ClientConn) {
	if cc.GetState() == connectivity.Ready || !l.reviving.CompareAndSwap(false, true) {
		return
	}
	l.mu.Lock()
	begun := l.dials.Load()
	if l.abort != nil {
		l.abort(errRevived)
	}
	l.mu.Unlock()
	// Not READY, the newest connection is either still in its handshake or already dead.
	l.closeConn()
	cc.Connect()
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
