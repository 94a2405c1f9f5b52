package forward

import (
	"context"
	"sync"
	"time"

	"google.golang.org/grpc"
)

// A relayed stream (a backup, a restore, a series' journal) has no moment at which an answer
// is overdue, as a unary call has at its hop's bound: a backup may wait on the leader's disk,
// and a restore hears nothing until its end. So nothing gives up on a stream in a cut while
// this node still believes in the leader, and until gRPC's keepalive pinged (PingEvery) and
// waited (the link timeout) a stream that only receives sat silent for eleven seconds; one
// that sends is dropped sooner by TCP_USER_TIMEOUT. Instead, while a stream is open on a
// connection, the link is probed each time the connection has been silent for the link
// timeout, as for a call given up on: a leader that is only slow answers the probe and keeps
// the connection and its streams; a connection that stays silent through the probe is closed,
// which ends its streams with an error within about three link timeouts of the silence's
// start. A stream that hears nothing for long costs one health check per link timeout.

// watchStream is the connection's stream interceptor: it guards each stream until it ends.
func (l *link) watchStream(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
	s, err := streamer(ctx, desc, cc, method, opts...)
	if err != nil {
		return s, err
	}
	w := &watchedStream{ClientStream: s, oneAnswer: !desc.ServerStreams, done: make(chan struct{})}
	go l.guard(ctx, cc, w.done)
	return w, nil
}

// guard probes the link whenever it has been silent for the link timeout, until ctx ends or
// done is closed.
func (l *link) guard(ctx context.Context, cc *grpc.ClientConn, done <-chan struct{}) {
	t := time.NewTicker(l.timeout)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-done:
			return
		case now := <-t.C:
			if since := now.Add(-l.timeout); l.silentSince(since) {
				l.suspect(cc, since)
			}
		}
	}
}

// watchedStream is a stream that closes done once it has ended: its last answer received, or
// an error.
type watchedStream struct {
	grpc.ClientStream
	oneAnswer bool // the call answers once (a restore), and ends with that answer
	done      chan struct{}
	once      sync.Once
}

func (w *watchedStream) RecvMsg(m any) error {
	err := w.ClientStream.RecvMsg(m)
	if err != nil || w.oneAnswer {
		w.once.Do(func() { close(w.done) })
	}
	return err
}
