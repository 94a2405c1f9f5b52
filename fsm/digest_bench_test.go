//go:build unix

package fsm

import (
	"fmt"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/raft"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// BenchmarkDigestUpkeep applies single identity increments, round robin over the 1,000
// counters and tags of countersFSM, back to back: without a digest, and with FSM.Digest taken
// every n applies, the cadence a comparison across members would take it at. The difference
// per apply is the digest's cost (docs/BENCHMARKS-STATE.md, "State digest"). Besides the wall
// clock it reports the process's CPU time per apply (cpu-ns/op), which a loaded machine's
// scheduling disturbs less.
func BenchmarkDigestUpkeep(b *testing.B) {
	const names = 1_000
	entries := make([][]byte, names)
	for k := range entries {
		data, err := Encode(IdentityBatchCommand, &raftv1.IdentityBatch{Increments: []*raftv1.IdentityIncrement{{Name: "growth-" + strconv.Itoa(k), Count: 1}}})
		if err != nil {
			b.Fatal(err)
		}
		entries[k] = data
	}
	for _, every := range []int{0, 1_000, 10_000, 100_000} {
		name := "digest=none"
		if every > 0 {
			name = fmt.Sprintf("digest-every=%d", every)
		}
		b.Run(name, func(b *testing.B) {
			f := countersFSM(b, names)
			b.ReportAllocs()
			b.ResetTimer()
			before := cpuTime(b)
			for i := range b.N {
				if _, failed := f.Apply(&raft.Log{Index: uint64(i + 1), Type: raft.LogCommand, Data: entries[i%names]}).(error); failed {
					b.Fatal("an increment failed")
				}
				if every > 0 && (i+1)%every == 0 {
					if _, _, err := f.Digest(); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(cpuTime(b)-before)/float64(b.N), "cpu-ns/op")
		})
	}
}

// BenchmarkDigest takes the digest of a state of n identity counters and n HiLo tags.
func BenchmarkDigest(b *testing.B) {
	for _, n := range counterSizes[:3] {
		b.Run(fmt.Sprintf("counters=%d", n), func(b *testing.B) {
			f := countersFSM(b, n)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if _, _, err := f.Digest(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDigestMark is what a digest mark hashes, with and without the checksums of its
// parts: their cost is the difference (docs/BENCHMARKS-STATE.md, "State digest").
func BenchmarkDigestMark(b *testing.B) {
	f := countersFSM(b, counterSizes[1])
	for _, parts := range []bool{false, true} {
		b.Run(fmt.Sprintf("parts=%v", parts), func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				f.mu.RLock()
				records := f.st.records(false)
				f.mu.RUnlock()
				var err error
				if parts {
					_, _, err = digestRecordParts(records)
				} else {
					_, err = digestRecords(records)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// cpuTime is the CPU time the process has used, user and system.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
