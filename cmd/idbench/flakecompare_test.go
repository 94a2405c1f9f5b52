package main

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bwmarrin/snowflake"
	"github.com/sony/sonyflake"

	"github.com/idnode/idnode/flake"
	"github.com/idnode/idnode/hilo"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// BenchmarkFlakeVsSnowflake puts flake's Generator beside the two common Go
// Snowflake libraries, each on the wall clock with its usual layout:
//   - flake: DefaultLayout (41 bits of ms, 10 worker, 12 sequence); past
//     the borrow bound the caller waits for the clock (ErrClockBehind), so
//     it is capped at 4096 IDs per ms like bwmarrin/snowflake. The borrow
//     (1 s, about 4 M IDs at full rate) is used up before timing starts, or
//     its burst would flatter the sustained rate.
//   - snowflake: bwmarrin/snowflake v0.3.0, the same bit split; it spins
//     inside Generate when a millisecond's sequence is used up.
//   - sonyflake: sony/sonyflake, 39 bits of 10 ms, 8 sequence, 16 machine;
//     it sleeps when 256 IDs in 10 ms are used up, so 25,600 IDs/s at most.
//   - hilo-client: idnode's HiLo client (package hilo, the Go client's
//     NextID), which prints orders/N-A strings from ranges it reserved; its
//     ranges here come from memory at once (2^20 numbers each), so this is
//     its in-process path only, as the others are theirs.
//
// M-IDs/s is the sustained rate. The -parallel variants share one
// generator between GOMAXPROCS goroutines.
func BenchmarkFlakeVsSnowflake(b *testing.B) {
	b.Run("flake", func(b *testing.B) {
		g := newFlake(b)
		runIDs(b, func() error { return nextWaiting(g) })
	})
	b.Run("snowflake", func(b *testing.B) {
		n := newSnowflake(b)
		runIDs(b, func() error { n.Generate(); return nil })
	})
	b.Run("sonyflake", func(b *testing.B) {
		sf := newSonyflake(b)
		runIDs(b, func() error { _, err := sf.NextID(); return err })
	})
	b.Run("hilo-client", func(b *testing.B) {
		g, err := hilo.NewGenerator(&memoryRanges{}, "orders")
		if err != nil {
			b.Fatal(err)
		}
		defer g.Close(context.Background())
		ctx := context.Background()
		runIDs(b, func() error { _, err := g.NextID(ctx); return err })
	})
	b.Run("flake-parallel", func(b *testing.B) {
		g := newFlake(b)
		runIDsParallel(b, func() error { return nextWaiting(g) })
	})
	b.Run("snowflake-parallel", func(b *testing.B) {
		n := newSnowflake(b)
		runIDsParallel(b, func() error { n.Generate(); return nil })
	})
}

func newFlake(b *testing.B) *flake.Generator {
	b.Helper()
	l := flake.DefaultLayout()
	lease := flake.Lease{Worker: 1, MinTick: -1, MaxTick: l.MaxTick(), ValidUntil: time.Now().Add(24 * time.Hour)}
	g, err := flake.New(l, lease, flake.Options{})
	if err != nil {
		b.Fatal(err)
	}
	for {
		_, err := g.Next()
		if errors.Is(err, flake.ErrClockBehind) {
			return g
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}

// nextWaiting is Next as an application at full rate calls it: on
// ErrClockBehind it tries again until the clock catches up.
func nextWaiting(g *flake.Generator) error {
	for {
		_, err := g.Next()
		if !errors.Is(err, flake.ErrClockBehind) {
			return err
		}
	}
}

// memoryRanges hands out HiLo ranges of 2^20 numbers from memory, at once: the HiLo client's
// in-process path without a cluster behind it.
type memoryRanges struct{ top atomic.Int64 }

const memoryRange = 1 << 20

func (m *memoryRanges) NextHiLo(context.Context, *idnodev1.NextHiLoRequest) (*idnodev1.NextHiLoResponse, error) {
	high := m.top.Add(memoryRange)
	return &idnodev1.NextHiLoResponse{Low: high - memoryRange + 1, High: high, Prefix: "orders/", ServerTag: "A"}, nil
}

func (m *memoryRanges) ReturnHiLo(context.Context, *idnodev1.ReturnHiLoRequest) (bool, error) {
	return false, nil
}

func newSnowflake(b *testing.B) *snowflake.Node {
	b.Helper()
	n, err := snowflake.NewNode(1)
	if err != nil {
		b.Fatal(err)
	}
	return n
}

func newSonyflake(b *testing.B) *sonyflake.Sonyflake {
	b.Helper()
	sf, err := sonyflake.New(sonyflake.Settings{
		StartTime: flake.DefaultLayout().Epoch,
		MachineID: func() (uint16, error) { return 1, nil },
	})
	if err != nil {
		b.Fatal(err)
	}
	return sf
}

func runIDs(b *testing.B, next func() error) {
	b.ReportAllocs()
	for b.Loop() {
		if err := next(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds()/1e6, "M-IDs/s")
}

func runIDsParallel(b *testing.B, next func() error) {
	b.ReportAllocs()
	b.ResetTimer() // leave out the setup, as b.Loop does
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := next(); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds()/1e6, "M-IDs/s")
}
