package fsm

import (
	"strconv"
	"testing"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// BenchmarkHeadroom reads the headroom of a database with every worker of the default layout
// (1,024) leased and 100,000 identity counters: the cost is the workers', not the counters'.
func BenchmarkHeadroom(b *testing.B) {
	f := New()
	for range 1024 {
		mustApplyOK(b, f, AcquireWorkerCommand, &raftv1.AcquireWorker{Holder: "app", WorkerBits: 10, LeaseMs: testLeaseMs, ProposedAtMs: 100_000})
	}
	for i := range 100_000 {
		mustApplyOK(b, f, SeedIdentityCommand, &raftv1.SeedIdentity{Name: "c" + strconv.Itoa(i), Value: int64(i)})
	}
	for b.Loop() {
		if h := f.Headroom(105_000); h[0].WorkersLeased != 1024 {
			b.Fatalf("Headroom = %+v, want 1024 workers leased", h[0])
		}
	}
}
