package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// rssRecord is a memory sample that bench/compare.sh adds to the results file.
type rssRecord struct {
	Kind    string `json:"kind"` // "rss"
	Process string `json:"process"`
	IdleKB  int64  `json:"idle_kb"`
	LoadKB  int64  `json:"load_kb"` // peak while Load ran
	Load    string `json:"load"`
}

// runTable is `idbench table FILE...`: it reads results (one JSON object per line, as --json
// prints them, plus "rss" records) and prints markdown tables: every run, idnode identities
// side by side with the etcd counter and raw Puts, memory, and the targets.
//
// With --brief it prints one line per result instead (for scripts' progress output).
func runTable(args []string, stdin io.Reader, out io.Writer) error {
	brief := len(args) > 0 && args[0] == "--brief"
	if brief {
		args = args[1:]
	}
	if len(args) == 0 {
		return errors.New("usage: idbench table [--brief] FILE... (results as printed by idbench --json, one per line; - for stdin)")
	}
	var (
		results []*result
		rss     []rssRecord
	)
	for _, name := range args {
		var data []byte
		var err error
		if name == "-" {
			data, err = io.ReadAll(stdin)
		} else {
			data, err = os.ReadFile(name)
		}
		if err != nil {
			return err
		}
		r, m, err := parseRecords(data)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		results, rss = append(results, r...), append(rss, m...)
	}
	if brief {
		for _, r := range results {
			writeBrief(out, r)
		}
		return nil
	}
	writeTables(out, results, rss)
	return nil
}

// writeBrief is one line: "etcd Put, 64 callers: 4,012 calls/s, 4,012 IDs/s, p99 31.2 ms, 0 errors".
func writeBrief(w io.Writer, r *result) {
	fmt.Fprintf(w, "%s, %d callers: %s calls/s, %s IDs/s, p99 %s ms, %d errors%s\n",
		workloadName(r), r.Concurrency, thousands(r.OpsPerSec), thousands(r.IDsPerSec), fmtMs(r.LatencyMs.P99),
		r.Errors, codesText(r.ErrorsByCode))
}

func parseRecords(data []byte) ([]*result, []rssRecord, error) {
	var (
		results []*result
		rss     []rssRecord
	)
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for line := 1; sc.Scan(); line++ {
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		var head struct {
			Kind string `json:"kind"`
		}
		if err := json.Unmarshal(text, &head); err != nil {
			return nil, nil, fmt.Errorf("line %d: %w", line, err)
		}
		switch head.Kind {
		case "result":
			r := new(result)
			if err := json.Unmarshal(text, r); err != nil {
				return nil, nil, fmt.Errorf("line %d: %w", line, err)
			}
			results = append(results, r)
		case "rss":
			var m rssRecord
			if err := json.Unmarshal(text, &m); err != nil {
				return nil, nil, fmt.Errorf("line %d: %w", line, err)
			}
			rss = append(rss, m)
		default:
			return nil, nil, fmt.Errorf("line %d: unknown kind %q", line, head.Kind)
		}
	}
	return results, rss, sc.Err()
}

// workloadName is the row label of a result.
func workloadName(r *result) string {
	if r.Label != "" {
		return r.Label
	}
	switch {
	case r.Target == targetEtcd && r.Strategy == stratIdentity:
		return "etcd CAS counter"
	case r.Target == targetEtcd && r.Strategy == stratPut:
		return "etcd Put"
	case r.Target == targetPostgres:
		return "PostgreSQL nextval"
	case r.ClaimIDs != "" && r.ClaimIDs != claimNames:
		return fmt.Sprintf("idnode %s count=%d ids=%s", r.Strategy, r.Count, r.ClaimIDs)
	case usesCount(r.Strategy):
		return fmt.Sprintf("idnode %s count=%d", r.Strategy, r.Count)
	case r.RangeSize > 0:
		return fmt.Sprintf("idnode %s size=%d", r.Strategy, r.RangeSize)
	case r.Via != "":
		return fmt.Sprintf("idnode %s via %s", r.Strategy, r.Via)
	}
	return r.Target + " " + r.Strategy
}

func writeTables(w io.Writer, results []*result, rss []rssRecord) {
	writeTable(w, "### Every run",
		"| workload | callers | nodes | calls/s | IDs/s | p50 ms | p99 ms | p99.9 ms | max ms | errors | notes |",
		"|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|",
		results, func(r *result) string {
			nodes := len(r.Nodes)
			if r.Target != targetIdnode {
				nodes = len(r.Endpoints)
			}
			l := r.LatencyMs
			return fmt.Sprintf("| %s | %d | %d | %s | %s | %s | %s | %s | %s | %d%s | %s |",
				workloadName(r), r.Concurrency, nodes, thousands(r.OpsPerSec), thousands(r.IDsPerSec),
				fmtMs(l.P50), fmtMs(l.P99), fmtMs(l.P999), fmtMs(l.Max), r.Errors, codesText(r.ErrorsByCode), notes(r))
		})
	writeSideBySide(w, results)
	writeTable(w, "### Memory (resident set, `ps -o rss`)", "| process | idle | peak under load | load |", "|---|--:|--:|---|",
		rss, func(m rssRecord) string {
			return fmt.Sprintf("| %s | %s | %s | %s |", m.Process, mb(m.IdleKB), mb(m.LoadKB), m.Load)
		})
	writeTargets(w, results, rss)
}

// writeTable prints a markdown table under heading: its header and alignment lines, a line
// per item as row makes it, then a blank line. Without items it prints nothing, so that
// results without, say, memory samples have no empty section.
func writeTable[T any](w io.Writer, heading, header, align string, items []T, row func(T) string) {
	if len(items) == 0 {
		return
	}
	fmt.Fprintln(w, heading)
	fmt.Fprintln(w)
	fmt.Fprintln(w, header)
	fmt.Fprintln(w, align)
	for _, item := range items {
		fmt.Fprintln(w, row(item))
	}
	fmt.Fprintln(w)
}

func notes(r *result) string {
	var parts []string
	if c := r.CAS; c != nil {
		parts = append(parts, fmt.Sprintf("%s Txn conflicts (%.1f per ID)", thousands(float64(c.Conflicts)), perID(c.Conflicts, c.Successes)))
		if c.Verified {
			parts = append(parts, fmt.Sprintf("verified: %d IDs = counter %d→%d", c.Successes, c.CounterStart, c.CounterEnd))
		} else {
			parts = append(parts, "NOT verified: "+c.Verdict)
		}
	}
	if c := r.Sequence; c != nil {
		if c.Verified {
			parts = append(parts, fmt.Sprintf("verified: %d IDs = sequence %d→%d", c.Successes, c.CounterStart, c.CounterEnd))
		} else {
			parts = append(parts, "NOT verified: "+c.Verdict)
		}
	}
	if u := r.Unique; u != nil {
		parts = append(parts, fmt.Sprintf("%s IDs checked unique, %d duplicates", thousands(float64(u.Checked)), u.Duplicates))
	}
	if r.StoppedBy != "" && r.StoppedBy != "duration" {
		parts = append(parts, "stopped by "+r.StoppedBy)
	}
	return strings.Join(parts, "; ")
}

func mb(kb int64) string {
	if kb <= 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f MB", float64(kb)/1024)
}

// find returns the first result for target/strategy at callers (and count, when count > 0).
func find(results []*result, target, strategy string, callers int, count int64) *result {
	for _, r := range results {
		if r.Target == target && r.Strategy == strategy && r.Concurrency == callers && (count == 0 || r.Count == count) {
			return r
		}
	}
	return nil
}

// routes are the ways idnode identities were sent, in the order the tables show them.
var routes = []string{viaRoundRobin, viaGoClient}

// routeOf is how r's idnode calls reached the nodes; results from before --via were round-robin.
func routeOf(r *result) string {
	if r.Via == "" {
		return viaRoundRobin
	}
	return r.Via
}

// findIdentity returns the first idnode identity result at callers sent by route.
func findIdentity(results []*result, route string, callers int) *result {
	for _, r := range results {
		if r.Target == targetIdnode && r.Strategy == stratIdentity && r.Concurrency == callers && routeOf(r) == route {
			return r
		}
	}
	return nil
}

// writeSideBySide is a row per caller count and idnode route: identities against the anchors
// at the same callers (their latencies and errors are in the table of every run).
func writeSideBySide(w io.Writer, results []*result) {
	var callers []int
	for _, r := range results {
		if r.Target == targetIdnode && r.Strategy == stratIdentity && !slices.Contains(callers, r.Concurrency) {
			callers = append(callers, r.Concurrency)
		}
	}
	if len(callers) == 0 {
		return
	}
	slices.Sort(callers)
	fmt.Fprintln(w, "### Identities side by side (one ID per call)")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| callers | idnode route | identity IDs/s | p99 ms | errors | etcd CAS counter IDs/s | etcd Put ops/s | PostgreSQL nextval IDs/s | identity ÷ CAS | identity ÷ Put | identity ÷ nextval |")
	fmt.Fprintln(w, "|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
	rate := func(r *result) string {
		if r == nil {
			return "–"
		}
		return thousands(r.IDsPerSec)
	}
	for _, n := range callers {
		cas := find(results, targetEtcd, stratIdentity, n, 0)
		put := find(results, targetEtcd, stratPut, n, 0)
		pg := find(results, targetPostgres, stratIdentity, n, 0)
		for _, route := range routes {
			id := findIdentity(results, route, n)
			if id == nil {
				continue
			}
			fmt.Fprintf(w, "| %d | %s | %s | %s | %d%s | %s | %s | %s | %s | %s | %s |\n", n, route, rate(id), fmtMs(id.LatencyMs.P99),
				id.Errors, codesText(id.ErrorsByCode), rate(cas), rate(put), rate(pg), ratio(id, cas), ratio(id, put), ratio(id, pg))
		}
	}
	fmt.Fprintln(w)
}

func ratio(a, b *result) string {
	if a == nil || b == nil || b.IDsPerSec == 0 {
		return "–"
	}
	x := a.IDsPerSec / b.IDsPerSec
	if x >= 10 {
		return fmt.Sprintf("%.0f×", x)
	}
	return fmt.Sprintf("%.1f×", x)
}

// writeTargets checks the measurements against the project's speed and memory targets (the identity
// targets for each route that was measured, server-side IDs, a node's memory). They are reported,
// never asserted: a miss is a line in the doc, not a failure.
func writeTargets(w io.Writer, results []*result, rss []rssRecord) {
	type check struct {
		what, measured string
		met            bool
	}
	var checks []check
	add := func(what, measured string, met bool) { checks = append(checks, check{what, measured, met}) }

	cas64 := find(results, targetEtcd, stratIdentity, 64, 0)
	put64 := find(results, targetEtcd, stratPut, 64, 0)
	for _, route := range routes {
		id64, id256 := findIdentity(results, route, 64), findIdentity(results, route, 256)
		if id64 == nil {
			continue
		}
		if cas64 != nil && cas64.IDsPerSec > 0 {
			x := id64.IDsPerSec / cas64.IDsPerSec
			add("identities ("+route+") ≥ 100× the etcd CAS counter, 64 callers", fmt.Sprintf("%.0f×", x), x >= 100)
		}
		if put64 != nil && put64.IDsPerSec > 0 {
			x := id64.IDsPerSec / put64.IDsPerSec
			add("identities ("+route+") ≥ 3× etcd raw Put ops/s, 64 callers", fmt.Sprintf("%.1f×", x), x >= 3)
		}
		add("identity ("+route+") p99 ≤ 20 ms, 64 callers", fmtMs(id64.LatencyMs.P99)+" ms", id64.LatencyMs.P99 <= 20)
		add("identity ("+route+") errors = 0, 64 callers", fmt.Sprintf("%d%s", id64.Errors, codesText(id64.ErrorsByCode)), id64.Errors == 0)
		if id256 != nil {
			add("identities ("+route+") at 256 callers ≥ at 64", fmt.Sprintf("%s vs %s IDs/s", thousands(id256.IDsPerSec), thousands(id64.IDsPerSec)),
				id256.IDsPerSec >= id64.IDsPerSec)
		}
	}
	if r := find(results, targetIdnode, stratServerSide, 64, 1); r != nil {
		add("server-side `users/` ≥ 40,000 calls/s on one node, 64 callers", thousands(r.OpsPerSec)+" calls/s", r.OpsPerSec >= 40000)
	}
	if r := find(results, targetIdnode, stratServerSide, 64, 1000); r != nil {
		add("server-side count 1000 ≥ 5,000,000 IDs/s", thousands(r.IDsPerSec)+" IDs/s", r.IDsPerSec >= 5e6)
	}
	var idle, load int64 // the largest idnode node
	for _, m := range rss {
		if strings.HasPrefix(m.Process, "idnode") {
			idle, load = max(idle, m.IdleKB), max(load, m.LoadKB)
		}
	}
	if idle > 0 {
		add("idnode RSS idle ≤ 40 MB per node (largest node)", mb(idle), idle <= 40*1024)
	}
	if load > 0 {
		add("idnode RSS under the 64-caller identity load ≤ 150 MB per node (largest node)", mb(load), load <= 150*1024)
	}
	writeTable(w, "### Speed and memory targets (measured, not asserted)", "| target | measured | met |", "|---|--:|:-:|",
		checks, func(c check) string {
			mark := "no"
			if c.met {
				mark = "yes"
			}
			return fmt.Sprintf("| %s | %s | %s |", c.what, c.measured, mark)
		})
}
