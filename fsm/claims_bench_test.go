package fsm

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/hashicorp/raft"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// claimsFSM is an FSM holding n claims "users/<caller>-<seq>" without owner, the IDs
// `idbench --strategy claim` (bench/claims.sh) fills a node with: 8 callers, 1000 per Claim.
func claimsFSM(b testing.TB, n int) *FSM {
	b.Helper()
	f := New()
	const callers, perCall = 8, 1000
	seq := make([]int, callers)
	ids := make([]string, 0, perCall)
	for call := 0; call*perCall < n; call++ {
		c := call % callers
		ids = ids[:0]
		for range min(perCall, n-call*perCall) {
			ids = append(ids, "users/"+strconv.Itoa(c)+"-"+strconv.Itoa(seq[c]))
			seq[c]++
		}
		data, err := Encode(ClaimCommand, &raftv1.Claim{Ids: ids})
		if err != nil {
			b.Fatal(err)
		}
		if res := f.Apply(&raft.Log{Type: raft.LogCommand, Data: data}); res != nil {
			b.Fatalf("claim %d: %v", call, res)
		}
	}
	return f
}

// BenchmarkSnapshotClaims is what raft's snapshot of a node with claims costs the FSM: the
// capture (FSM.Snapshot, in raft's FSM goroutine: no command is applied meanwhile) and the
// write (Persist, in the background), with the bytes written and the heap the two allocate.
//
//	go test -run NONE -bench SnapshotClaims -benchtime 3x -benchmem ./fsm/
func BenchmarkSnapshotClaims(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		b.Run(fmt.Sprintf("claims=%d", n), func(b *testing.B) { benchSnapshot(b, claimsFSM(b, n), n, "claim") })
	}
}

// BenchmarkRestoreClaims is what reading such a snapshot back costs (raft restores it before
// the node serves).
//
//	go test -run NONE -bench RestoreClaims -benchtime 3x -benchmem ./fsm/
func BenchmarkRestoreClaims(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		b.Run(fmt.Sprintf("claims=%d", n), func(b *testing.B) { benchRestore(b, claimsFSM(b, n)) })
	}
}

// BenchmarkListClaimsPage is one page of GetClaims by prefix (idctl claims --prefix): the
// matching keys are collected and sorted for every page, under the FSM's read lock.
//
//	go test -run NONE -bench ListClaimsPage -benchtime 5x -benchmem ./fsm/
func BenchmarkListClaimsPage(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		b.Run(fmt.Sprintf("claims=%d", n), func(b *testing.B) {
			f := claimsFSM(b, n)
			for b.Loop() {
				page, more, err := f.ListClaims("", "users/", "", 1000)
				if err != nil || len(page) != 1000 || !more {
					b.Fatalf("ListClaims: %d claims, more %v, %v", len(page), more, err)
				}
			}
		})
	}
}
