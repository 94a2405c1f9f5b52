// Command idbench is a load generator for a running idnode cluster, and for what a user would
// otherwise build on: etcd (a compare-and-swap counter, or raw Puts) and a PostgreSQL sequence.
//
//	idbench --nodes 127.0.0.1:7071,127.0.0.1:7072,127.0.0.1:7073 --strategy identity --concurrency 64 --duration 10s
//	idbench --target etcd --endpoints 127.0.0.1:2379 --strategy identity --concurrency 64 --duration 10s
//	idbench --target postgres --dsn postgres://127.0.0.1:5432/postgres --concurrency 64 --duration 10s
//	idbench table results.jsonl     # markdown tables from --json results
//	idbench generator --nodes 127.0.0.1:7070 --duration 10s   # one HiLo generator's IDs/s
//
// Every run is bounded in time (--duration, at most 10 minutes, or --ops with the same cap).
// It prints a progress line per second on stderr and a report at the end: throughput (calls
// and IDs per second), latency percentiles from an HdrHistogram, and errors by gRPC code.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// Exit codes: 0 done, 1 the run went wrong (nothing succeeded, the etcd counter or the
// PostgreSQL sequence does not add up, or client-hilo saw an ID twice), 2 bad command line.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "table" {
		if err := runTable(args[1:], os.Stdin, stdout); err != nil {
			fmt.Fprintf(stderr, "idbench table: %v\n", err)
			return 2
		}
		return 0
	}
	if len(args) > 0 && args[0] == "generator" {
		return runGenerator(ctx, args[1:], stdout, stderr)
	}
	cfg, err := parseConfig(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "idbench: %v\n", err)
		return 2
	}
	res, err := bench(ctx, cfg, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "idbench: %v\n", err)
		return 1
	}
	if cfg.jsonOut {
		enc := json.NewEncoder(stdout)
		if err := enc.Encode(res); err != nil {
			fmt.Fprintf(stderr, "idbench: %v\n", err)
			return 1
		}
	} else {
		writeText(stdout, res)
	}
	switch {
	case res.CAS != nil && !res.CAS.Verified:
		fmt.Fprintf(stderr, "idbench: etcd counter verification failed: %s\n", res.CAS.Verdict)
		return 1
	case res.Sequence != nil && !res.Sequence.Verified:
		fmt.Fprintf(stderr, "idbench: PostgreSQL sequence verification failed: %s\n", res.Sequence.Verdict)
		return 1
	case res.Unique != nil && res.Unique.Duplicates > 0:
		fmt.Fprintf(stderr, "idbench: %d IDs were handed out twice\n", res.Unique.Duplicates)
		return 1
	case res.Ops == 0:
		fmt.Fprintf(stderr, "idbench: no call succeeded (%d errors%s)\n", res.Errors, codesText(res.ErrorsByCode))
		return 1
	}
	return 0
}

// op makes one operation — one call, or for the etcd counter a Get/Txn loop until it wins —
// and says how many IDs it produced. Each caller has its own op. ctx is the run's context
// (cancelled on interrupt); the op applies the per-call timeout itself.
type op func(ctx context.Context) (ids int64, err error)

// errStopped is returned by an op that gave up because the run ended; it is not an error.
var errStopped = errors.New("run stopped")

// workload is a target made ready: one op per caller, plus what to do after the run.
type workload struct {
	ops    []op
	finish func(ctx context.Context, res *result) error // after the load, adds its check to res; nil if nothing to check
	unique func() *uniqueCheck                          // after the load; nil if nothing to check
	hilo   func() *generatorStats                       // after the load; nil without HiLo generators
	close  func()
}

// errorPause is how long a caller waits after a failed call, so a down node does not turn
// the benchmark into a busy loop of instant errors.
const errorPause = 10 * time.Millisecond

// bench connects, runs the load and assembles the result.
func bench(ctx context.Context, cfg *config, progress io.Writer) (*result, error) {
	st := newStopper()
	var (
		wl  *workload
		err error
	)
	switch cfg.target {
	case targetEtcd:
		wl, err = newEtcdWorkload(ctx, cfg, st.stopped)
	case targetPostgres:
		wl, err = newPostgresWorkload(ctx, cfg)
	case targetIdnode:
		switch {
		case cfg.strategy == stratClientHiLo:
			wl, err = newClientHiLoWorkload(ctx, cfg)
		case cfg.via == viaGoClient:
			wl, err = newGoClientWorkload(ctx, cfg)
		default:
			wl, err = newIdnodeWorkload(ctx, cfg)
		}
	}
	if err != nil {
		return nil, err
	}
	defer wl.close()

	rec := newRecorder(cfg.concurrency)
	started := time.Now()
	elapsed := runLoad(ctx, cfg, wl.ops, rec, st, progress)

	res := &result{
		Kind: "result", Label: cfg.label, Target: cfg.target, Strategy: cfg.strategy,
		Nodes: cfg.nodes, Endpoints: cfg.endpoints, Concurrency: cfg.concurrency, Conns: cfg.conns,
		Via: cfg.via, IdentityCall: cfg.identityCall, Count: cfg.count, Prefix: cfg.prefix, Started: started.UTC().Truncate(time.Second),
		DurationS: elapsed.Seconds(), StoppedBy: st.why(),
		Ops: rec.ops.Load(), IDs: rec.ids.Load(), Errors: rec.errs.Load(),
		LatencyMs: latencyOf(rec.merged()),
	}
	rec.mu.Lock()
	res.ErrorsByCode = rec.codes
	res.ErrorsByMessage = rec.messages
	rec.mu.Unlock()
	if cfg.strategy == stratClaim {
		res.ClaimIDs = cfg.claimIDs
	}
	res.RangeSize = cfg.rangeSize
	if s := elapsed.Seconds(); s > 0 {
		res.OpsPerSec = float64(res.Ops) / s
		res.IDsPerSec = float64(res.IDs) / s
	}
	if wl.finish != nil {
		// The check runs even after an interrupt, on a context of its own, briefly.
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*cfg.timeout)
		defer cancel()
		if err := wl.finish(fctx, res); err != nil {
			return nil, err
		}
	}
	if wl.unique != nil {
		res.Unique = wl.unique()
	}
	if wl.hilo != nil {
		res.Generator = wl.hilo()
	}
	if cfg.ramp != nil {
		res.Ramp = cfg.ramp.String()
	}
	return res, nil
}

// stopper ends a run once, remembering the first reason.
type stopper struct {
	once   sync.Once
	ch     chan struct{}
	mu     sync.Mutex
	reason string
}

func newStopper() *stopper { return &stopper{ch: make(chan struct{})} }

func (s *stopper) stop(reason string) {
	s.once.Do(func() {
		s.mu.Lock()
		s.reason = reason
		s.mu.Unlock()
		close(s.ch)
	})
}

func (s *stopper) stopped() bool {
	select {
	case <-s.ch:
		return true
	default:
		return false
	}
}

func (s *stopper) why() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reason
}

// runLoad runs one goroutine per op until the stopper fires — at --duration (or the 10-minute
// cap), or on interrupt — or until --ops operations have been started. Operations in flight
// at the end finish (each call is bounded by --timeout; an etcd counter op stops retrying when
// the stopper fires) and count. With a --ramp each caller waits for its next call's turn (the
// wait is not part of the call's latency). It returns the wall time until the last caller is
// done.
func runLoad(ctx context.Context, cfg *config, ops []op, rec *recorder, st *stopper, progress io.Writer) time.Duration {
	var issued atomic.Int64
	// The clock starts before the timer, so a run stopped by --duration never reports less
	// time than it ran (which would overstate its rate).
	begin := time.Now()
	timer := time.AfterFunc(cfg.limit(), func() {
		if cfg.duration > 0 {
			st.stop("duration")
		} else {
			st.stop("cap")
		}
	})
	defer timer.Stop()
	go func() {
		select {
		case <-ctx.Done():
			st.stop("interrupt")
		case <-st.ch:
		}
	}()

	done := make(chan struct{})
	var reporter sync.WaitGroup
	if cfg.progress {
		reporter.Go(func() { reportProgress(progress, rec, begin, done) })
	}
	var wg sync.WaitGroup
	for i, call := range ops {
		var pace *pacer
		if cfg.ramp != nil {
			pace = newPacer(cfg.ramp, begin, len(ops), i)
		}
		wg.Go(func() {
			for !st.stopped() {
				if cfg.ops > 0 && issued.Add(1) > cfg.ops {
					return // all claimed; the ops in flight elsewhere still finish
				}
				if pace != nil {
					pace.wait()
				}
				start := time.Now()
				ids, err := call(ctx)
				took := time.Since(start)
				switch {
				case err == nil:
					rec.success(i, took, ids)
				case errors.Is(err, errStopped) || ctx.Err() != nil:
					return
				default:
					rec.failure(err)
					select {
					case <-st.ch:
					case <-time.After(errorPause):
					}
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(begin)
	timer.Stop()
	if ctx.Err() != nil {
		st.stop("interrupt")
	}
	st.stop("ops") // unless something stopped the run earlier
	close(done)
	reporter.Wait() // no progress line after the run has returned
	return elapsed
}

// reportProgress prints one line per second until done, and one for the last part-second if
// it is long enough to mean something.
func reportProgress(w io.Writer, rec *recorder, begin time.Time, done <-chan struct{}) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	var lastOps, lastIDs, lastErrs int64
	last := begin
	line := func(now time.Time) {
		ops, ids, errs := rec.ops.Load(), rec.ids.Load(), rec.errs.Load()
		secs := now.Sub(last).Seconds()
		fmt.Fprintf(w, "idbench: %5.1fs %12s ops/s %12s IDs/s %6d errors/s   (total %s ops, %d errors)\n",
			now.Sub(begin).Seconds(),
			thousands(float64(ops-lastOps)/secs), thousands(float64(ids-lastIDs)/secs),
			int64(float64(errs-lastErrs)/secs+0.5), thousands(float64(ops)), errs)
		lastOps, lastIDs, lastErrs, last = ops, ids, errs, now
	}
	for {
		select {
		case <-done:
			if now := time.Now(); now.Sub(last) >= 200*time.Millisecond {
				line(now)
			}
			return
		case now := <-tick.C:
			line(now)
		}
	}
}
