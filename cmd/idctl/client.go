package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/tlsconfig"
)

// client talks to the nodes in --addr, in order: a call that gets UNAVAILABLE (node down, no
// quorum on its side) is tried on the next one.
type client struct {
	addrs   []string
	dial    []grpc.DialOption
	token   string
	timeout time.Duration
	tls     bool
	conns   map[string]*grpc.ClientConn
}

func newClient(g *globals) (*client, error) {
	var addrs []string
	for _, a := range strings.Split(g.addr, ",") {
		if a = strings.TrimSpace(a); a != "" {
			addrs = append(addrs, a)
		}
	}
	if len(addrs) == 0 {
		return nil, usagef("--addr is empty")
	}
	creds, useTLS := insecure.NewCredentials(), g.tlsCA != "" || g.tlsCert != "" || g.tlsServerName != ""
	if useTLS {
		tc, err := tlsconfig.Client(g.tlsCA, g.tlsCert, g.tlsKey, g.tlsServerName)
		if err != nil {
			return nil, usagef("%v", err)
		}
		creds = credentials.NewTLS(tc)
	}
	return &client{
		addrs: addrs, token: g.token, timeout: g.timeout, tls: useTLS, conns: map[string]*grpc.ClientConn{},
		dial: []grpc.DialOption{grpc.WithTransportCredentials(creds)},
	}, nil
}

func (c *client) conn(addr string) (*grpc.ClientConn, error) {
	if cc, ok := c.conns[addr]; ok {
		return cc, nil
	}
	cc, err := grpc.NewClient("passthrough:///"+addr, c.dial...)
	if err != nil {
		return nil, err
	}
	c.conns[addr] = cc
	return cc, nil
}

func (c *client) close() {
	for _, cc := range c.conns {
		_ = cc.Close()
	}
}

// callContext bounds one attempt and carries the admin token when there is one.
func (c *client) callContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if c.token != "" {
		ctx = metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+c.token)
	}
	return context.WithTimeout(ctx, c.timeout)
}

// call runs fn against the nodes in order until one does not answer UNAVAILABLE. what names
// the call in errors.
func (c *client) call(ctx context.Context, what string, fn func(ctx context.Context, cc *grpc.ClientConn) error) error {
	var errs []string
	for _, addr := range c.addrs {
		cc, err := c.conn(addr)
		if err != nil {
			return fmt.Errorf("%s: %s: %w", what, addr, err)
		}
		actx, cancel := c.callContext(ctx)
		err = fn(actx, cc)
		cancel()
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("%s: interrupted", what)
		}
		if !retryable(err) {
			return fmt.Errorf("%s via %s: %s", what, addr, describe(err))
		}
		errs = append(errs, fmt.Sprintf("%s: %s%s", addr, describe(err), c.hint(err)))
	}
	if len(errs) == 1 {
		return fmt.Errorf("%s via %s", what, errs[0])
	}
	return fmt.Errorf("%s: no node could answer (%s)", what, strings.Join(errs, "; "))
}

// hint explains the usual cause of a connection that breaks at once: TLS on one side only.
func (c *client) hint(err error) string {
	msg := status.Convert(err).Message()
	switch {
	case !c.tls && (strings.Contains(msg, "server preface") || strings.Contains(msg, "connection reset")):
		return " (does the node use TLS? then give --tls-ca)"
	case c.tls && strings.Contains(msg, "first record does not look like a TLS handshake"):
		return " (the node does not use TLS: leave out --tls-ca)"
	}
	return ""
}

// retryable is what another node may answer: this one is down or has no quorum on its side,
// or did not answer in time.
func retryable(err error) bool {
	switch status.Code(err) {
	case codes.Unavailable, codes.DeadlineExceeded:
		return true
	}
	return false
}

// describe is a gRPC error as "CODE: message".
func describe(err error) string {
	st, ok := status.FromError(err)
	if !ok {
		return err.Error()
	}
	code := strings.ToUpper(snake(st.Code().String()))
	if errors.Is(err, context.DeadlineExceeded) || st.Code() == codes.DeadlineExceeded {
		return code + ": no answer within --timeout"
	}
	return code + ": " + st.Message()
}

// snake turns "InvalidArgument" into "Invalid_Argument".
func snake(s string) string {
	var b strings.Builder
	for i, r := range s {
		if i > 0 && r >= 'A' && r <= 'Z' {
			b.WriteByte('_')
		}
		b.WriteRune(r)
	}
	return b.String()
}

func (c *client) ids(cc *grpc.ClientConn) idnodev1.IdServiceClient {
	return idnodev1.NewIdServiceClient(cc)
}

func (c *client) cluster(cc *grpc.ClientConn) idnodev1.ClusterServiceClient {
	return idnodev1.NewClusterServiceClient(cc)
}
