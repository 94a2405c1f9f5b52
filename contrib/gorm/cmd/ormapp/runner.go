package main

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"gorm.io/gorm"

	"github.com/idnode/idnode/client/rowkeys"
)

// The classes of a failed batch, as the summary counts them.
const (
	classIdnode = "idnode"           // no key: the plugin's error, with idnode's inside
	classUnique = "unique_violation" // SQLSTATE 23505: a key was used twice
	classOther  = "other"
)

// idnodeBackoff is the wait after a batch that got no keys, before the worker's next batch:
// long enough not to spin while the cluster elects a leader, short next to the election itself.
// It doubles while the worker's batches keep failing so.
const (
	idnodeBackoffMin = 20 * time.Millisecond
	idnodeBackoffMax = 500 * time.Millisecond
)

// runner is the workers' shared state.
type runner struct {
	cfg config
	db  *gorm.DB
	out *output

	mu       sync.Mutex
	budget   int64 // rows not yet given to a batch (--max-rows)
	stopOnce sync.Once
	stopping chan struct{} // closed when no batch may start
	rows     atomic.Int64  // rows committed
}

func (r *runner) stop() { r.stopOnce.Do(func() { close(r.stopping) }) }

func (r *runner) stopped() bool {
	select {
	case <-r.stopping:
		return true
	default:
		return false
	}
}

// take reserves up to n rows of the budget; 0 when it is spent.
func (r *runner) take(n int64) int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	n = min(n, r.budget)
	r.budget -= n
	return n
}

// insert runs the workers until they stop.
func (r *runner) insert() {
	var wg sync.WaitGroup
	for w := range r.cfg.workers {
		wg.Go(func() { r.work(w) })
	}
	wg.Wait()
}

// work is one worker: a batch at a time, the tables in turn, until stop or the budget ends. A
// batch that got no keys is given up after a backoff, and the worker goes on with its next
// table: an application whose cluster lost its majority keeps writing what needs none (rows
// keyed by HiLo, from a node's pool) while identities are refused.
func (r *runner) work(worker int) {
	var seq int64
	wait := idnodeBackoffMin
	for b := 0; !r.stopped(); b++ {
		n := r.take(int64(r.cfg.batch))
		if n == 0 {
			r.stop()
			return
		}
		t := r.cfg.tables[(worker+b)%len(r.cfg.tables)]
		if r.batch(t, worker, seq, int(n)) != classIdnode {
			wait = idnodeBackoffMin
		} else {
			select {
			case <-time.After(wait):
			case <-r.stopping:
				return
			}
			wait = min(2*wait, idnodeBackoffMax)
		}
		seq += n
	}
}

// batch inserts n rows into t and reports the outcome: "" when they were committed, or the
// failure's class.
func (r *runner) batch(t table, worker int, seq int64, n int) string {
	rows := t.rows(n, worker, seq, r.cfg.lang)
	if err := r.create(rows, n); err != nil {
		class := classify(err)
		r.out.failed(class, t.name, err)
		return class
	}
	r.rows.Add(int64(n))
	r.out.committed(t.name, t.ids(rows))
	return ""
}

// create inserts the rows in one transaction (GORM's default one around a Create).
func (r *runner) create(rows any, n int) error {
	ctx, cancel := context.WithTimeout(context.Background(), batchTimeout)
	defer cancel()
	return r.db.WithContext(ctx).CreateInBatches(rows, n).Error
}

// classify names a failed batch's class.
func classify(err error) string {
	var keys *rowkeys.Error
	var pg *pgconn.PgError
	switch {
	case errors.As(err, &keys):
		return classIdnode
	case errors.As(err, &pg) && pg.Code == "23505":
		return classUnique
	}
	return classOther
}
