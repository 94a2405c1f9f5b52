package main

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// newPostgresWorkload: every op is one `SELECT nextval('<prefix>')` on the caller's own
// connection, the way an application with a connection per worker gets an ID from a sequence
// (pgx.Conn is one session, not safe for concurrent use; a pool smaller than the callers would
// measure waiting for a connection, not the server). The sequence is created if missing with
// PostgreSQL's defaults (INCREMENT 1, CACHE 1), as for an IDENTITY or SERIAL column. Every value
// is kept and, at the end, checked against the sequence's advance, read on a connection of
// idbench's own that no call uses (a caller's may have been closed by a timeout).
func newPostgresWorkload(ctx context.Context, cfg *config) (*workload, error) {
	pc, err := pgx.ParseConfig(cfg.dsn)
	if err != nil {
		return nil, fmt.Errorf("--dsn: %w", err)
	}
	seq := &sequence{
		cfg: cfg, pc: pc, name: pgx.Identifier{cfg.prefix}.Sanitize(),
		conns: make([]*pgx.Conn, 0, cfg.concurrency), won: make([][]int64, cfg.concurrency),
	}
	// The text of nextval's argument is the quoted name as a string literal, so a prefix with
	// capitals or quotes names the sequence it says.
	seq.nextval = "SELECT nextval('" + strings.ReplaceAll(seq.name, "'", "''") + "')"

	cctx, cancel := context.WithTimeout(ctx, cfg.connect)
	defer cancel()
	connect := func() (*pgx.Conn, error) {
		c, err := pgx.ConnectConfig(cctx, pc)
		if err != nil {
			return nil, fmt.Errorf("connect to PostgreSQL at %s: %w (is it running, with max_connections above %d, the callers and idbench's own?)",
				cfg.endpoints[0], err, cfg.concurrency+1)
		}
		return c, nil
	}
	if seq.control, err = connect(); err != nil {
		return nil, err
	}
	for range cfg.concurrency {
		c, err := connect()
		if err != nil {
			seq.close()
			return nil, err
		}
		seq.conns = append(seq.conns, c)
	}
	if _, err := seq.control.Exec(cctx, "CREATE SEQUENCE IF NOT EXISTS "+seq.name); err != nil {
		seq.close()
		return nil, fmt.Errorf("create the sequence %s: %w", seq.name, err)
	}
	if seq.start, err = seq.read(cctx); err != nil {
		seq.close()
		return nil, fmt.Errorf("read the sequence %s before the run: %w", seq.name, err)
	}
	ops := make([]op, cfg.concurrency)
	for i := range ops {
		ops[i] = func(ctx context.Context) (int64, error) { return seq.next(ctx, i) }
	}
	return &workload{ops: ops, finish: seq.verify, close: seq.close}, nil
}

// sequence is one run's PostgreSQL sequence and the callers' connections to it.
type sequence struct {
	cfg       *config
	pc        *pgx.ConnConfig
	name      string      // quoted identifier
	nextval   string      // the query of every op
	conns     []*pgx.Conn // per caller
	control   *pgx.Conn   // idbench's own: creates and reads the sequence
	start     int64
	uncertain atomic.Int64
	won       [][]int64 // per caller: the values it obtained (8 bytes per ID, like the etcd counter's)
}

// next makes caller's operation: one nextval on its connection. A timed-out call leaves pgx unable to
// tell where the session stood, so it closes the connection; the caller then connects again,
// as a pool would give it a fresh one.
func (s *sequence) next(ctx context.Context, caller int) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.timeout)
	defer cancel()
	if s.conns[caller].IsClosed() {
		c, err := pgx.ConnectConfig(ctx, s.pc)
		if err != nil {
			return 0, err
		}
		s.conns[caller] = c
	}
	var v int64
	if err := s.conns[caller].QueryRow(ctx, s.nextval).Scan(&v); err != nil {
		if !pgconn.SafeToRetry(err) {
			s.uncertain.Add(1) // the server may have run nextval: the sequence may be ahead of our count
		}
		return 0, err
	}
	s.won[caller] = append(s.won[caller], v)
	return 1, nil
}

// read returns the last value the sequence handed out (start-1 while nothing was, i.e. 0 for
// a new sequence): last_value counts only once is_called is set.
func (s *sequence) read(ctx context.Context) (int64, error) {
	var (
		last   int64
		called bool
	)
	if err := s.control.QueryRow(ctx, "SELECT last_value, is_called FROM "+s.name).Scan(&last, &called); err != nil {
		return 0, err
	}
	if !called {
		last--
	}
	return last, nil
}

// verify runs after the load.
func (s *sequence) verify(ctx context.Context, res *result) error {
	end, err := s.read(ctx)
	if err != nil {
		return fmt.Errorf("read the sequence %s after the run: %w", s.name, err)
	}
	chk := checkCounter(s.name, s.start, end, s.uncertain.Load(), s.won)
	res.Sequence = &chk
	return nil
}

func (s *sequence) close() {
	// Closing sends a Terminate; bounded, since a server that stopped answering must not hold us.
	ctx, cancel := context.WithTimeout(context.Background(), s.cfg.timeout)
	defer cancel()
	_ = s.control.Close(ctx)
	for _, c := range s.conns {
		_ = c.Close(ctx)
	}
}
