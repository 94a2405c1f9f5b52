package main

import (
	"context"
	"fmt"
	"strconv"
	"sync/atomic"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// etcdKeyRoot is where idbench keeps its keys in etcd: idbench/<prefix>/...
const etcdKeyRoot = "idbench/"

// newEtcdWorkload opens --conns etcd clients (each balancing over every endpoint) and builds
// the callers' ops: the CAS counter for identity, distinct-key Puts for put.
func newEtcdWorkload(ctx context.Context, cfg *config, stopped func() bool) (*workload, error) {
	var clients []*clientv3.Client
	closeAll := func() {
		for _, c := range clients {
			_ = c.Close()
		}
	}
	for range cfg.conns {
		c, err := clientv3.New(clientv3.Config{
			Endpoints:   cfg.endpoints,
			DialTimeout: cfg.connect, // > 0: New blocks until connected, at most this long
			Logger:      zap.NewNop(),
		})
		if err != nil {
			closeAll()
			return nil, fmt.Errorf("connect to etcd %v: %w", cfg.endpoints, err)
		}
		clients = append(clients, c)
	}
	if cfg.strategy == stratPut {
		return etcdPutWorkload(cfg, clients, closeAll), nil
	}
	wl, err := etcdCASWorkload(ctx, cfg, clients, stopped)
	if err != nil {
		closeAll()
		return nil, err
	}
	wl.close = closeAll
	return wl, nil
}

// etcdPutWorkload: every op is a Put of a key no other op writes,
// idbench/<prefix>/put/<caller>/<n>, with a short value: one replicated write each.
func etcdPutWorkload(cfg *config, clients []*clientv3.Client, closeAll func()) *workload {
	ops := make([]op, cfg.concurrency)
	for i := range ops {
		kv := clients[i%len(clients)]
		base := fmt.Sprintf("%s%s/put/%d/", etcdKeyRoot, cfg.prefix, i)
		var n int64
		ops[i] = func(ctx context.Context) (int64, error) {
			n++
			ctx, cancel := context.WithTimeout(ctx, cfg.timeout)
			defer cancel()
			v := strconv.FormatInt(n, 10)
			if _, err := kv.Put(ctx, base+v, v); err != nil {
				return 0, err
			}
			return 1, nil
		}
	}
	return &workload{ops: ops, close: closeAll}
}

// casCounter is the consecutive counter users build on etcd: read the key, then
// Txn(If ModRevision(key) == rev).Then(Put(key, n+1)); when the compare fails someone else
// won, so read again and retry.
type casCounter struct {
	cfg     *config
	key     string
	start   int64
	stopped func() bool

	attempts, conflicts, uncertain atomic.Int64
	won                            [][]int64 // per caller: the values it obtained
	first                          *clientv3.Client
}

func etcdCASWorkload(ctx context.Context, cfg *config, clients []*clientv3.Client, stopped func() bool) (*workload, error) {
	c := &casCounter{
		cfg: cfg, key: etcdKeyRoot + cfg.prefix + "/counter", stopped: stopped,
		won: make([][]int64, cfg.concurrency), first: clients[0],
	}
	var err error
	if c.start, _, err = c.read(ctx, clients[0]); err != nil {
		return nil, fmt.Errorf("read the counter %s before the run: %w", c.key, err)
	}
	ops := make([]op, cfg.concurrency)
	for i := range ops {
		kv := clients[i%len(clients)]
		ops[i] = func(ctx context.Context) (int64, error) { return c.next(ctx, kv, i) }
	}
	return &workload{ops: ops, finish: c.verify}, nil
}

// read returns the counter's value and mod revision (0, 0 when the key does not exist yet: a
// compare against ModRevision 0 then means "still absent").
func (c *casCounter) read(ctx context.Context, kv *clientv3.Client) (value, rev int64, err error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.timeout)
	defer cancel()
	resp, err := kv.Get(ctx, c.key)
	if err != nil {
		return 0, 0, err
	}
	if len(resp.Kvs) == 0 {
		return 0, 0, nil
	}
	v, err := strconv.ParseInt(string(resp.Kvs[0].Value), 10, 64)
	if err != nil {
		return 0, 0, fmt.Errorf("%w: counter %s holds %q, not a number", errBadResponse, c.key, resp.Kvs[0].Value)
	}
	return v, resp.Kvs[0].ModRevision, nil
}

// next obtains one value for caller: read, compare-and-swap, and on conflict read again,
// until it wins, an error, or the end of the run (errStopped; nothing was written then).
func (c *casCounter) next(ctx context.Context, kv *clientv3.Client, caller int) (int64, error) {
	for {
		if c.stopped() {
			return 0, errStopped
		}
		cur, rev, err := c.read(ctx, kv)
		if err != nil {
			return 0, err
		}
		tctx, cancel := context.WithTimeout(ctx, c.cfg.timeout)
		resp, err := kv.Txn(tctx).
			If(clientv3.Compare(clientv3.ModRevision(c.key), "=", rev)).
			Then(clientv3.OpPut(c.key, strconv.FormatInt(cur+1, 10))).
			Commit()
		cancel()
		c.attempts.Add(1)
		if err != nil {
			c.uncertain.Add(1) // it may have been applied: the counter may be ahead of our count
			return 0, err
		}
		if resp.Succeeded {
			c.won[caller] = append(c.won[caller], cur+1)
			return 1, nil
		}
		c.conflicts.Add(1)
	}
}

// verify reads the counter after the run and checks it against what the callers won.
func (c *casCounter) verify(ctx context.Context, res *result) error {
	end, _, err := c.read(ctx, c.first)
	if err != nil {
		return fmt.Errorf("read the counter %s after the run: %w", c.key, err)
	}
	res.CAS = &casCheck{
		Attempts: c.attempts.Load(), Conflicts: c.conflicts.Load(),
		counterCheck: checkCounter(c.key, c.start, end, c.uncertain.Load(), c.won),
	}
	return nil
}
