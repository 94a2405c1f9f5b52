package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/idnode/idnode/client"
)

// Bounds of `idbench generator`: the timed loop, and the IDs checked for duplicates after it.
const (
	maxGeneratorDuration = time.Minute
	generatorChecked     = 100_000
	generatorWarmUp      = 2_000_000 // IDs taken before the clock starts: the ranges grow meanwhile
)

// generatorResult is what `idbench generator` prints: one JSON line.
type generatorResult struct {
	Kind       string  `json:"kind"` // "generator"
	Prefix     string  `json:"prefix"`
	IDs        int64   `json:"ids"`
	Seconds    float64 `json:"seconds"`
	IDsPerSec  float64 `json:"ids_per_second"`
	Fetches    int64   `json:"fetches"`
	RangeSize  int64   `json:"range_size"`
	Checked    int     `json:"checked"`
	Duplicates int     `json:"duplicates"`
}

// runGenerator is `idbench generator`: HiLo IDs per second from one Go client's generator on
// one goroutine, in a loop that does nothing else. The other clients' benchmarks measure their
// generators the same way, so bench/clients.sh compares generator with generator; idbench's
// client-hilo strategy measures a generator through idbench's own per-call accounting
// (latency histogram, context, uniqueness record), which costs more than the generator does.
// The IDs of the timed loop are not kept; generatorChecked IDs taken after it are checked for
// duplicates.
func runGenerator(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("idbench generator", flag.ContinueOnError)
	fs.SetOutput(stderr)
	nodes := fs.String("nodes", "127.0.0.1:7070", "idnode gRPC addresses host:port,...")
	duration := fs.Duration("duration", 10*time.Second, "how long the timed loop runs (at most 1m)")
	prefix := fs.String("prefix", fmt.Sprintf("bench-generator-%d", time.Now().UnixNano()), "the HiLo tag")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	addrs, err := splitAddrs("--nodes", *nodes, false)
	if err == nil && (*duration <= 0 || *duration > maxGeneratorDuration) {
		err = fmt.Errorf("--duration %v: want more than 0 and at most %v", *duration, maxGeneratorDuration)
	}
	if err != nil {
		fmt.Fprintf(stderr, "idbench generator: %v\n", err)
		return 2
	}
	res, err := measureGenerator(ctx, addrs, *prefix, *duration)
	if err != nil {
		fmt.Fprintf(stderr, "idbench generator: %v\n", err)
		return 1
	}
	if err := json.NewEncoder(stdout).Encode(res); err != nil {
		fmt.Fprintf(stderr, "idbench generator: %v\n", err)
		return 1
	}
	if res.Duplicates > 0 {
		fmt.Fprintf(stderr, "idbench generator: %d of %d IDs checked were handed out twice\n", res.Duplicates, res.Checked)
		return 1
	}
	return 0
}

func measureGenerator(ctx context.Context, addrs []string, prefix string, d time.Duration) (*generatorResult, error) {
	c, err := client.Dial(ctx, addrs)
	if err != nil {
		return nil, err
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		_ = c.Close(cctx)
	}()
	g, err := c.Generator(prefix)
	if err != nil {
		return nil, err
	}
	for range generatorWarmUp {
		if _, err := g.NextID(ctx); err != nil {
			return nil, err
		}
	}
	const batch = 100_000 // IDs between looks at the clock
	var n int64
	started := time.Now()
	for time.Since(started) < d {
		for range batch {
			if _, err := g.NextID(ctx); err != nil {
				return nil, err
			}
		}
		n += batch
	}
	took := time.Since(started).Seconds()
	seen := make(map[string]struct{}, generatorChecked)
	for range generatorChecked {
		id, err := g.NextID(ctx)
		if err != nil {
			return nil, err
		}
		seen[id] = struct{}{}
	}
	st := g.Stats()
	return &generatorResult{
		Kind: "generator", Prefix: prefix, IDs: n, Seconds: took, IDsPerSec: float64(n) / took,
		Fetches: st.Fetches, RangeSize: st.RangeSize, Checked: generatorChecked, Duplicates: generatorChecked - len(seen),
	}, nil
}
