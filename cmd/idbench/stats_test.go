package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestRecorderPercentiles(t *testing.T) {
	rec := newRecorder(64) // 16 shards: the merge must see every one
	for i := 1; i <= 10000; i++ {
		rec.success(i, time.Duration(i)*100*time.Microsecond, 2) // 0.1 ms … 1000 ms, uniform
	}
	rec.failure(status.Error(codes.Unavailable, "no quorum"))
	rec.failure(status.Error(codes.Unavailable, "no quorum"))
	rec.failure(status.Error(codes.DeadlineExceeded, "deadline exceeded"))
	l := latencyOf(rec.merged())
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"p50", l.P50, 500}, {"p90", l.P90, 900}, {"p99", l.P99, 990}, {"p99.9", l.P999, 999}, {"max", l.Max, 1000}, {"mean", l.Mean, 500.05},
	} {
		// Three significant digits: within 0.1% (plus HdrHistogram's bucket rounding).
		if math.Abs(c.got-c.want) > c.want*0.002 {
			t.Errorf("%s = %v ms, want %v ms ± 0.2%%", c.name, c.got, c.want)
		}
	}
	if rec.ops.Load() != 10000 || rec.ids.Load() != 20000 || rec.errs.Load() != 3 {
		t.Errorf("counters: ops %d ids %d errs %d", rec.ops.Load(), rec.ids.Load(), rec.errs.Load())
	}
	if got := codesText(rec.codes); got != " (Unavailable 2, DeadlineExceeded 1)" {
		t.Errorf("codesText = %q", got)
	}
	if rec.messages["Unavailable: no quorum"] != 2 || rec.messages["DeadlineExceeded: deadline exceeded"] != 1 {
		t.Errorf("messages = %v", rec.messages)
	}
	// Messages are bounded: past maxMessages distinct ones, the rest count together.
	for i := range maxMessages + 5 {
		rec.failure(status.Errorf(codes.Unavailable, "node %d down", i))
	}
	if len(rec.messages) != maxMessages+1 || rec.messages["Unavailable: (other messages)"] != 7 {
		t.Errorf("after %d distinct messages: %d kept, %d other", maxMessages+5, len(rec.messages), rec.messages["Unavailable: (other messages)"])
	}
}

func TestRecorderClampsOutOfRange(t *testing.T) {
	rec := newRecorder(1)
	rec.success(0, 0, 1)
	rec.success(0, 24*time.Hour, 1)
	h := rec.merged()
	if h.TotalCount() != 2 {
		t.Fatalf("recorded %d values, want 2 (clamped, not dropped)", h.TotalCount())
	}
}

func TestErrorCode(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{status.Error(codes.Unavailable, "no quorum"), "Unavailable"},
		{fmt.Errorf("wrapped: %w", status.Error(codes.InvalidArgument, "bad")), "InvalidArgument"},
		{status.FromContextError(context.DeadlineExceeded).Err(), "DeadlineExceeded"},
		{context.DeadlineExceeded, "DeadlineExceeded"},
		{fmt.Errorf("%w: short", errBadResponse), "BadResponse"},
		{rpctypes.ErrNoLeader, "Unavailable"},
		{rpctypes.Error(rpctypes.ErrGRPCTimeout), "Unavailable"},
		{fmt.Errorf("nextval: %w", &pgconn.PgError{Code: "53300", Message: "too many clients already"}), "SQLSTATE 53300"},
		{fmt.Errorf("dial error: %w", &net.OpError{Op: "dial", Net: "tcp", Err: os.ErrDeadlineExceeded}), "DeadlineExceeded"},
		{errors.New("something else"), "Other"},
	} {
		if got := errorCode(tc.err); got != tc.want {
			t.Errorf("errorCode(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
}

func TestFormatting(t *testing.T) {
	for in, want := range map[float64]string{0: "0", 7: "7", 999: "999", 1000: "1,000", 1234567.8: "1,234,568", -4321: "-4,321"} {
		if got := thousands(in); got != want {
			t.Errorf("thousands(%v) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[float64]string{0: "0", 0.000412: "0.0004", 0.4123: "0.412", 4.123: "4.12", 41.23: "41.2", 412.3: "412"} {
		if got := fmtMs(in); got != want {
			t.Errorf("fmtMs(%v) = %q, want %q", in, got, want)
		}
	}
}

func TestWriteText(t *testing.T) {
	var b bytes.Buffer
	writeText(&b, &result{
		Target: targetEtcd, Strategy: stratIdentity, Endpoints: []string{"127.0.0.1:2379"}, Concurrency: 64, Conns: 1,
		DurationS: 10, StoppedBy: "duration", Ops: 650, IDs: 650, OpsPerSec: 65, IDsPerSec: 65,
		Errors: 2, ErrorsByCode: map[string]int64{"Unavailable": 2},
		LatencyMs: latency{P50: 900, P90: 1500, P99: 2100, P999: 2500, Max: 2600, Mean: 980},
		CAS: &casCheck{Attempts: 13000, Conflicts: 12350,
			counterCheck: counterCheck{Successes: 650, CounterEnd: 650, Verified: true, Verdict: "successes 650 == counter advance 0→650: no duplicates, no gaps"}},
	})
	for _, want := range []string{
		"idbench: etcd identity (CAS counter), 64 callers, 127.0.0.1:2379 × 1 conns, 10.0s (stopped by duration)",
		"ops               650            65 ops/s",
		"latency  p50 900  p90 1500  p99 2100  p99.9 2500  max 2600  mean 980 (ms)",
		"errors   2 (Unavailable 2)",
		"etcd CAS 13000 Txn attempts, 12350 conflicts (19.0 per ID)",
		"verify   OK: successes 650 == counter advance",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, b.String())
		}
	}
}

func TestWriteTextClaim(t *testing.T) {
	var b bytes.Buffer
	writeText(&b, &result{
		Target: targetIdnode, Strategy: stratClaim, ClaimIDs: claimNumbers, Count: 1000, Nodes: []string{"127.0.0.1:7070"}, Concurrency: 8, Conns: 1,
		DurationS: 4, StoppedBy: "ops", Ops: 1000, IDs: 1_000_000, OpsPerSec: 250, IDsPerSec: 250_000,
	})
	want := "idbench: idnode claim count=1000 ids=numbers, 8 callers, 127.0.0.1:7070 × 1 conns, 4.0s (stopped by ops)"
	if !strings.Contains(b.String(), want) {
		t.Errorf("report lacks %q:\n%s", want, b.String())
	}
}

func TestWriteTextHiLoRangeSize(t *testing.T) {
	var b bytes.Buffer
	writeText(&b, &result{
		Target: targetIdnode, Strategy: stratHiLoRange, RangeSize: 32, Count: 1, Nodes: []string{"127.0.0.1:7070"}, Concurrency: 16, Conns: 1,
		DurationS: 10, StoppedBy: "duration", Ops: 1000, IDs: 32_000, OpsPerSec: 100, IDsPerSec: 3200,
	})
	want := "idbench: idnode hilo-range size=32, 16 callers, 127.0.0.1:7070 × 1 conns, 10.0s (stopped by duration)"
	if !strings.Contains(b.String(), want) {
		t.Errorf("report lacks %q:\n%s", want, b.String())
	}
}

// fakeConfig is a config for runLoad alone.
func fakeConfig(callers int, d time.Duration, ops int64) *config {
	return &config{target: targetIdnode, strategy: stratIdentity, concurrency: callers, conns: 1, duration: d, ops: ops, count: 1, timeout: time.Second}
}

func fakeOps(n int, f op) []op {
	ops := make([]op, n)
	for i := range ops {
		ops[i] = f
	}
	return ops
}

func TestRunLoadStopsAfterOps(t *testing.T) {
	var calls atomic.Int64
	cfg := fakeConfig(8, 0, 1000)
	rec, st := newRecorder(8), newStopper()
	runLoad(context.Background(), cfg, fakeOps(8, func(context.Context) (int64, error) {
		calls.Add(1)
		return 3, nil
	}), rec, st, &bytes.Buffer{})
	if calls.Load() != 1000 || rec.ops.Load() != 1000 || rec.ids.Load() != 3000 {
		t.Errorf("calls %d, ops %d, ids %d; want exactly 1000 calls of 3 IDs", calls.Load(), rec.ops.Load(), rec.ids.Load())
	}
	if st.why() != "ops" {
		t.Errorf("stopped by %q, want ops", st.why())
	}
}

func TestRunLoadStopsAtDuration(t *testing.T) {
	cfg := fakeConfig(4, 300*time.Millisecond, 0)
	rec, st := newRecorder(4), newStopper()
	var progress bytes.Buffer
	cfg.progress = true
	elapsed := runLoad(context.Background(), cfg, fakeOps(4, func(context.Context) (int64, error) {
		time.Sleep(time.Millisecond)
		return 1, nil
	}), rec, st, &progress)
	if elapsed < 300*time.Millisecond || elapsed > 3*time.Second {
		t.Errorf("elapsed %v, want about 300ms", elapsed)
	}
	if st.why() != "duration" || rec.ops.Load() == 0 {
		t.Errorf("stopped by %q after %d ops", st.why(), rec.ops.Load())
	}
}

func TestRunLoadCountsErrorsAndIgnoresStopped(t *testing.T) {
	cfg := fakeConfig(2, 0, 40)
	rec, st := newRecorder(2), newStopper()
	var n atomic.Int64
	runLoad(context.Background(), cfg, fakeOps(2, func(context.Context) (int64, error) {
		switch n.Add(1) % 4 {
		case 0:
			return 0, status.Error(codes.Unavailable, "no quorum")
		case 1:
			return 0, errStopped // the run ended under it: not an error, and the caller quits
		default:
			return 1, nil
		}
	}), rec, st, &bytes.Buffer{})
	if rec.errs.Load() != rec.codes["Unavailable"] {
		t.Errorf("errors %d, by code %v", rec.errs.Load(), rec.codes)
	}
	if _, ok := rec.codes["Other"]; ok {
		t.Errorf("errStopped was counted as an error: %v", rec.codes)
	}
}

func TestRunLoadInterrupt(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cfg := fakeConfig(4, time.Minute, 0)
	rec, st := newRecorder(4), newStopper()
	time.AfterFunc(100*time.Millisecond, cancel)
	begin := time.Now()
	runLoad(ctx, cfg, fakeOps(4, func(ctx context.Context) (int64, error) {
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(5 * time.Millisecond):
			return 1, nil
		}
	}), rec, st, &bytes.Buffer{})
	if took := time.Since(begin); took > 5*time.Second {
		t.Errorf("interrupt took %v to stop the run", took)
	}
	if st.why() != "interrupt" || rec.errs.Load() != 0 {
		t.Errorf("stopped by %q with %d errors; want interrupt, and calls cancelled by it not counted", st.why(), rec.errs.Load())
	}
}
