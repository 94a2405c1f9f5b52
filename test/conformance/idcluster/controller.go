package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/idnode/idnode/test/helpers/postgres"
)

// controller holds the one cluster of this run.
type controller struct {
	bin string
	log *slog.Logger
	cl  *cluster         // nil: none started
	pg  *postgres.Server // nil: none started
}

// handlers: one per command; each returns the answer's fields besides "ok".
var handlers = map[string]func(*controller, request) (map[string]any, error){
	"start":           (*controller).start,
	"kill":            each(func(_ *cluster, n *node) error { return n.kill() }, alive),
	"pause":           each(func(_ *cluster, n *node) error { return n.signal(syscall.SIGSTOP, stateRunning, statePaused) }, running),
	"resume":          each(func(_ *cluster, n *node) error { return n.signal(syscall.SIGCONT, statePaused, stateRunning) }, paused),
	"stop":            each(func(_ *cluster, n *node) error { return n.stop() }, running),
	"restart":         each((*cluster).restart, stopped),
	"restartIsolated": each((*cluster).restartIsolated, stopped),
	"calls":           (*controller).calls,
	"leader":          (*controller).leader,
	"teardown":        func(c *controller, _ request) (map[string]any, error) { c.teardown(); return nil, nil },
	"postgres":        (*controller).postgres,
}

// pgStartTimeout bounds initdb and PostgreSQL's start.
const pgStartTimeout = 2 * time.Minute

// pgStartAttempts is how many ports PostgreSQL's start tries when the one chosen was taken.
const pgStartAttempts = 3

func (c *controller) handle(req request) map[string]any {
	h, ok := handlers[req.Cmd]
	if !ok {
		names := make([]string, 0, len(handlers))
		for name := range handlers {
			names = append(names, name)
		}
		slices.Sort(names)
		return refusal(fmt.Errorf("unknown cmd %q: one of %v", req.Cmd, names))
	}
	if req.Cmd != "start" && req.Cmd != "teardown" && req.Cmd != "postgres" && c.cl == nil {
		return refusal(errors.New("no cluster: send start first"))
	}
	fields, err := h(c, req)
	if err != nil {
		c.log.Warn("refused", "cmd", req.Cmd, "node", req.Node, "err", err)
		return refusal(err)
	}
	c.log.Info("done", "cmd", req.Cmd, "node", req.Node)
	answer := map[string]any{"ok": true}
	for k, v := range fields {
		answer[k] = v
	}
	return answer
}

func (c *controller) start(req request) (map[string]any, error) {
	if c.cl != nil {
		return nil, errors.New("a cluster is running: send teardown first")
	}
	top := topology{}
	if req.Topology != nil {
		top = *req.Topology
	}
	if err := top.check(); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "idcluster-")
	if err != nil {
		return nil, err
	}
	cl, err := startCluster(c.bin, dir, top, c.log)
	if err != nil {
		if cl != nil {
			cl.teardown()
		}
		_ = os.RemoveAll(dir)
		return nil, err
	}
	c.cl = cl
	return map[string]any{"cluster": cl.describe()}, nil
}

func (c *controller) leader(request) (map[string]any, error) {
	tag, err := c.cl.waitLeader()
	if err != nil {
		return nil, err
	}
	return map[string]any{"leader": tag, "nodes": []string{tag}}, nil
}

// postgres starts a private PostgreSQL server (test/helpers/postgres), once, for the tests of
// a client's database examples; teardown stops it. The answer says where it serves.
func (c *controller) postgres(request) (map[string]any, error) {
	for attempt := 1; c.pg == nil; attempt++ {
		addrs, err := freePorts(1)
		if err != nil {
			return nil, err
		}
		ctx, cancel := context.WithTimeout(context.Background(), pgStartTimeout)
		pg, err := postgres.Start(ctx, addrs[0])
		cancel()
		if err == nil {
			c.pg = pg
			break
		}
		// The port is chosen seconds before PostgreSQL listens on it (initdb runs first), and
		// another process may take it meanwhile, as it may a node's (exitedError.lostPort):
		// PostgreSQL then says so, and another port is tried.
		if attempt == pgStartAttempts || !strings.Contains(strings.ToLower(err.Error()), addrInUse) {
			return nil, err
		}
		c.log.Warn("postgres: its port was taken before it listened; trying another", "addr", addrs[0])
	}
	return map[string]any{"postgres": map[string]string{"dsn": c.pg.DSN, "addr": c.pg.Addr, "user": postgres.User, "database": postgres.Database}}, nil
}

func (c *controller) teardown() {
	if c.cl != nil {
		c.cl.teardown()
		c.cl = nil
	}
	if c.pg != nil {
		if err := c.pg.Stop(); err != nil {
			c.log.Warn("teardown", "postgres", c.pg.Addr, "err", err)
		}
		c.pg = nil
	}
}

// each makes a handler that resolves the request's selector among the nodes in a state that
// fits the action (which, for "all" and "followers"), then acts on every one.
func each(act func(*cluster, *node) error, which stateFilter) func(*controller, request) (map[string]any, error) {
	return func(c *controller, req request) (map[string]any, error) {
		nodes, err := c.cl.selectNodes(req.Node, which)
		if err != nil {
			return nil, err
		}
		tags := make([]string, 0, len(nodes))
		for _, n := range nodes {
			if err := act(c.cl, n); err != nil {
				return nil, fmt.Errorf("node %s: %w", n.tag, err)
			}
			tags = append(tags, n.tag)
		}
		return map[string]any{"nodes": tags}, nil
	}
}
