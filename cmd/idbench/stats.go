package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Latencies are recorded in nanoseconds (client-hilo calls take well under a microsecond), up
// to longer than any run can last (an etcd CAS operation includes its retries, so one can in
// principle take the whole run), with three significant digits: p99.9 of 12.345 ms is
// reported as 12.3 ms, never 12 or 13.
const (
	histLowest  = 1
	histHighest = int64(maxDuration + time.Minute)
	histSigFigs = 3
	// maxShards bounds the histograms a run keeps: callers share them by index, each behind
	// its own mutex, so 256 callers do not cost 256 histograms (~250 KB each).
	maxShards = 16
)

// recorder collects what the callers see. Counters are atomic so the progress line can read
// them while the run goes on; histograms are sharded to keep their mutexes uncontended.
type recorder struct {
	ops, ids, errs atomic.Int64
	shards         []histShard

	mu       sync.Mutex
	codes    map[string]int64
	messages map[string]int64 // "Code: message", at most maxMessages of them
}

// maxMessages bounds the distinct error messages a run keeps (messages name addresses and
// numbers, so they could be as many as the errors); the rest count as "(other messages)".
const maxMessages = 20

// maxMessageLen cuts a message kept for the report.
const maxMessageLen = 160

type histShard struct {
	mu sync.Mutex
	h  *hdrhistogram.Histogram
	_  [40]byte // keep neighbouring shards' mutexes off one cache line
}

func newRecorder(callers int) *recorder {
	n := min(callers, maxShards)
	r := &recorder{shards: make([]histShard, n), codes: map[string]int64{}, messages: map[string]int64{}}
	for i := range r.shards {
		r.shards[i].h = newHist()
	}
	return r
}

func newHist() *hdrhistogram.Histogram {
	return hdrhistogram.New(histLowest, histHighest, histSigFigs)
}

// success records one call of caller that returned ids IDs after took.
func (r *recorder) success(caller int, took time.Duration, ids int64) {
	ns := min(max(int64(took), histLowest), histHighest)
	s := &r.shards[caller%len(r.shards)]
	s.mu.Lock()
	_ = s.h.RecordValue(ns) // in range by construction
	s.mu.Unlock()
	r.ops.Add(1)
	r.ids.Add(ids)
}

// failure records one failed call under its gRPC code name and its message. Calls cut off by
// the run's own end or an interrupt never get here (run drops them): every failure counted is
// an answer the system gave.
func (r *recorder) failure(err error) {
	code := errorCode(err)
	msg := status.Convert(err).Message()
	if len(msg) > maxMessageLen {
		msg = msg[:maxMessageLen] + "…"
	}
	key := code + ": " + msg
	r.errs.Add(1)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.codes[code]++
	if _, seen := r.messages[key]; !seen && len(r.messages) >= maxMessages {
		key = code + ": (other messages)"
	}
	r.messages[key]++
}

// merged is every shard's histogram in one.
func (r *recorder) merged() *hdrhistogram.Histogram {
	all := newHist()
	for i := range r.shards {
		s := &r.shards[i]
		s.mu.Lock()
		all.Merge(s.h)
		s.mu.Unlock()
	}
	return all
}

// errBadResponse marks an answer that arrived but is wrong (e.g. fewer IDs than asked for).
var errBadResponse = errors.New("bad response")

// errorCode names an error for the "errors by code" table: the gRPC code when there is one
// (etcd's client errors carry one too), PostgreSQL's SQLSTATE for a refusal of the server,
// else a short name of our own.
func errorCode(err error) string {
	if errors.Is(err, errBadResponse) {
		return "BadResponse"
	}
	var sqlErr interface{ SQLState() string } // pgconn.PgError, without tying this file to pgx
	if errors.As(err, &sqlErr) {
		return "SQLSTATE " + sqlErr.SQLState()
	}
	var coder interface{ Code() codes.Code }
	if errors.As(err, &coder) {
		return coder.Code().String()
	}
	if s, ok := status.FromError(err); ok {
		return s.Code().String()
	}
	var netErr net.Error // a socket's own deadline (pgx dials and reads with the call's)
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &netErr) && netErr.Timeout()) {
		return codes.DeadlineExceeded.String()
	}
	if errors.Is(err, context.Canceled) {
		return codes.Canceled.String()
	}
	return "Other"
}

// result is what a run reports; --json prints it as is, `idbench table` reads it back.
type result struct {
	Kind         string           `json:"kind"` // always "result"
	Label        string           `json:"label,omitempty"`
	Target       string           `json:"target"`
	Strategy     string           `json:"strategy"`
	Nodes        []string         `json:"nodes,omitempty"`
	Endpoints    []string         `json:"endpoints,omitempty"` // etcd members; postgres: the server
	Concurrency  int              `json:"concurrency"`
	Conns        int              `json:"conns"`
	Via          string           `json:"via,omitempty"`           // idnode Generate strategies: round-robin or go-client
	IdentityCall string           `json:"identity_call,omitempty"` // --via go-client identities: next-identity or generate
	Count        int64            `json:"count"`
	ClaimIDs     string           `json:"claim_ids,omitempty"`  // claim: names or numbers
	RangeSize    int64            `json:"range_size,omitempty"` // hilo-range: the size asked for (--range-size)
	Prefix       string           `json:"prefix"`
	Started      time.Time        `json:"started"`
	DurationS    float64          `json:"duration_s"`
	StoppedBy    string           `json:"stopped_by"` // duration, ops, cap (10 min) or interrupt
	Ops          int64            `json:"ops"`
	IDs          int64            `json:"ids"`
	Errors       int64            `json:"errors"`
	ErrorsByCode map[string]int64 `json:"errors_by_code"`
	// ErrorsByMessage counts the errors by "Code: message" (at most 20 distinct).
	ErrorsByMessage map[string]int64 `json:"errors_by_message,omitempty"`
	OpsPerSec       float64          `json:"ops_per_sec"`
	IDsPerSec       float64          `json:"ids_per_sec"`
	LatencyMs       latency          `json:"latency_ms"`
	CAS             *casCheck        `json:"etcd_cas,omitempty"`
	Sequence        *counterCheck    `json:"postgres_sequence,omitempty"`
	Unique          *uniqueCheck     `json:"unique,omitempty"`
	Ramp            string           `json:"ramp,omitempty"`      // client-hilo --ramp FROM:TO:STEP
	Generator       *generatorStats  `json:"generator,omitempty"` // client-hilo
}

// generatorStats is what client-hilo's HiLo generators did (hilo.Stats, summed over --conns
// clients): a stall is a range fetch that callers had to wait for, because the range before it
// ran out first (the first fetch always is one).
type generatorStats struct {
	Fetches   int64 `json:"fetches"`
	Stalls    int64 `json:"stalls"`
	Waits     int64 `json:"waits"`      // calls that waited for a fetch
	RangeSize int64 `json:"range_size"` // of the newest range (the largest over the clients)
}

// uniqueCheck is client-hilo's check that no ID was handed out twice (IDs compared by a
// 64-bit hash; the first maxUniqueChecked IDs of the run).
type uniqueCheck struct {
	Checked    int64 `json:"checked"`
	Duplicates int64 `json:"duplicates"`
}

// latency is in milliseconds, of successful calls only.
type latency struct {
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p99_9"`
	Max  float64 `json:"max"`
	Mean float64 `json:"mean"`
}

// casCheck is the etcd counter's bookkeeping and its end-of-run verification (Uncertain
// counts the Txn calls that failed: committed or not, unknown).
type casCheck struct {
	Attempts     int64 `json:"attempts"`  // Txn calls
	Conflicts    int64 `json:"conflicts"` // Txn calls whose compare failed (each still a replicated write)
	counterCheck       // its fields inline, as before the check was shared with PostgreSQL
}

func latencyOf(h *hdrhistogram.Histogram) latency {
	ms := func(ns int64) float64 { return float64(ns) / 1e6 }
	return latency{
		P50:  ms(h.ValueAtQuantile(50)),
		P90:  ms(h.ValueAtQuantile(90)),
		P99:  ms(h.ValueAtQuantile(99)),
		P999: ms(h.ValueAtQuantile(99.9)),
		Max:  ms(h.Max()),
		Mean: h.Mean() / 1e6,
	}
}

// writeText prints the human report.
func writeText(w io.Writer, r *result) {
	where := strings.Join(r.Nodes, ",")
	if r.Target != targetIdnode {
		where = strings.Join(r.Endpoints, ",")
	}
	name := workloadTitle(r.Target, r.Strategy, r.Via, r.IdentityCall, r.Count, r.ClaimIDs, r.RangeSize, r.Ramp)
	fmt.Fprintf(w, "idbench: %s, %d callers, %s × %d conns, %.1fs (stopped by %s)\n",
		name, r.Concurrency, where, r.Conns, r.DurationS, r.StoppedBy)
	fmt.Fprintf(w, "  ops      %12s  %12s ops/s\n", thousands(float64(r.Ops)), thousands(r.OpsPerSec))
	fmt.Fprintf(w, "  IDs      %12s  %12s IDs/s\n", thousands(float64(r.IDs)), thousands(r.IDsPerSec))
	l := r.LatencyMs
	fmt.Fprintf(w, "  latency  p50 %s  p90 %s  p99 %s  p99.9 %s  max %s  mean %s (ms)\n",
		fmtMs(l.P50), fmtMs(l.P90), fmtMs(l.P99), fmtMs(l.P999), fmtMs(l.Max), fmtMs(l.Mean))
	fmt.Fprintf(w, "  errors   %d%s\n", r.Errors, codesText(r.ErrorsByCode))
	for _, m := range byCount(r.ErrorsByMessage)[:min(5, len(r.ErrorsByMessage))] {
		fmt.Fprintf(w, "           %d× %s\n", r.ErrorsByMessage[m], m)
	}
	if c := r.CAS; c != nil {
		fmt.Fprintf(w, "  etcd CAS %d Txn attempts, %d conflicts (%.1f per ID), %d with unknown outcome\n",
			c.Attempts, c.Conflicts, perID(c.Conflicts, c.Successes), c.Uncertain)
		mark := "OK"
		if !c.Verified {
			mark = "FAILED"
		}
		fmt.Fprintf(w, "  verify   %s: %s\n", mark, c.Verdict)
	}
	if c := r.Sequence; c != nil {
		mark := "OK"
		if !c.Verified {
			mark = "FAILED"
		}
		fmt.Fprintf(w, "  verify   %s: sequence %s: %s\n", mark, c.Key, c.Verdict)
	}
	if u := r.Unique; u != nil {
		mark := "OK"
		if u.Duplicates > 0 {
			mark = "FAILED"
		}
		fmt.Fprintf(w, "  unique   %s: %d IDs checked, %d duplicates\n", mark, u.Checked, u.Duplicates)
	}
	if g := r.Generator; g != nil {
		fmt.Fprintf(w, "  ranges   %d fetched, %d stalled callers (%d calls waited), newest %s IDs\n",
			g.Fetches, g.Stalls, g.Waits, thousands(float64(g.RangeSize)))
	}
}

func perID(n, ids int64) float64 {
	if ids == 0 {
		return 0
	}
	return float64(n) / float64(ids)
}

// byCount returns m's keys, the most frequent first (then by name).
func byCount(m map[string]int64) []string {
	keys := slices.Collect(maps.Keys(m))
	slices.SortFunc(keys, func(a, b string) int {
		if m[a] != m[b] {
			if m[a] > m[b] {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	return keys
}

// codesText is " (Unavailable 3, DeadlineExceeded 1)", most frequent first, or "".
func codesText(m map[string]int64) string {
	if len(m) == 0 {
		return ""
	}
	keys := byCount(m)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// fmtMs prints milliseconds with about three significant digits.
func fmtMs(ms float64) string {
	switch {
	case ms == 0:
		return "0"
	case ms < 0.01:
		return fmt.Sprintf("%.4f", ms)
	case ms < 1:
		return fmt.Sprintf("%.3f", ms)
	case ms < 10:
		return fmt.Sprintf("%.2f", ms)
	case ms < 100:
		return fmt.Sprintf("%.1f", ms)
	default:
		return fmt.Sprintf("%.0f", ms)
	}
}

// thousands rounds v to an integer and groups its digits: 1234567.8 → "1,234,568".
func thousands(v float64) string {
	neg := v < 0
	if neg {
		v = -v
	}
	s := fmt.Sprintf("%.0f", v)
	var b strings.Builder
	for i, ch := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(ch)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
