package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"google.golang.org/grpc/credentials"

	"github.com/idnode/idnode/client"
	"github.com/idnode/idnode/internal/tlsconfig"
)

// session is idctl's way to the cluster: the Go client over the --addr nodes, tried in the
// order given, each once per call, with --timeout per attempt.
type session struct {
	c        *client.Client
	addrs    []string
	tls      bool
	timeout  time.Duration
	nodeOpts []client.Option // for a client of one node (selfReports)
	attempts *attempts
}

func newSession(ctx context.Context, g *globals) (*session, error) {
	var addrs []string
	for _, a := range strings.Split(g.addr, ",") {
		if a = strings.TrimSpace(a); a != "" {
			addrs = append(addrs, a)
		}
	}
	if len(addrs) == 0 {
		return nil, usagef("--addr is empty")
	}
	opts := []client.Option{client.WithCallTimeout(g.timeout)}
	useTLS := g.tlsCA != "" || g.tlsCert != "" || g.tlsServerName != ""
	if useTLS {
		tc, err := tlsconfig.Client(g.tlsCA, g.tlsCert, g.tlsKey, g.tlsServerName)
		if err != nil {
			return nil, usagef("%v", err)
		}
		opts = append(opts, client.WithTransportCredentials(credentials.NewTLS(tc)))
	}
	if g.token != "" {
		opts = append(opts, client.WithAdminToken(g.token))
	}
	if g.key != "" {
		opts = append(opts, client.WithAPIKey(g.key))
	}
	if g.db != "" {
		opts = append(opts, client.WithDatabase(g.db))
	}
	s := &session{addrs: addrs, tls: useTLS, timeout: g.timeout, nodeOpts: opts, attempts: &attempts{}}
	c, err := client.Dial(ctx, addrs, append(opts, client.WithNodesInOrder(),
		client.WithBackoff(client.Backoff{MaxAttempts: len(addrs)}),
		client.WithDialOptions(s.attempts.dialOptions()...))...)
	if err != nil {
		return nil, usagef("%v", err)
	}
	s.c = c
	return s, nil
}

func (s *session) close() {
	_ = s.c.Close(context.Background())
}

// call runs one client call. Its errors name the call by what, and say what each node it
// tried answered.
func (s *session) call(ctx context.Context, what string, fn func(ctx context.Context) error) error {
	s.attempts.reset()
	err := fn(ctx)
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return fmt.Errorf("%s: interrupted", what)
	}
	tried := s.attempts.list()
	var nf *client.NodesFailedError
	if !errors.As(err, &nf) {
		// The error is one node's answer, or a local error such as a failed write of the
		// backup file. Either way it belongs to the last attempt, so name that node.
		if len(tried) == 0 {
			return fmt.Errorf("%s: %s", what, describe(err))
		}
		return fmt.Errorf("%s via %s: %s", what, tried[len(tried)-1].addr, describe(err))
	}
	var errs []string
	for _, a := range tried {
		if a.err != nil {
			errs = append(errs, fmt.Sprintf("%s: %s%s", a.addr, describe(a.err), s.hint(a.err)))
		}
	}
	if len(errs) == 1 {
		return fmt.Errorf("%s via %s", what, errs[0])
	}
	return fmt.Errorf("%s: no node could answer (%s)", what, strings.Join(errs, "; "))
}

// node returns a client of the node at addr alone, which tries that node once per call
// within min(--timeout, 2 s).
func (s *session) node(ctx context.Context, addr string) (*client.Client, error) {
	return client.Dial(ctx, []string{addr}, append(s.nodeOpts,
		client.WithCallTimeout(min(s.timeout, 2*time.Second)), client.WithBackoff(client.Backoff{MaxAttempts: 1}))...)
}
