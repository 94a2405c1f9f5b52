package history

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"
)

// The recorder turns counters into rates over the time between samples, and has none for
// the first sample or a counter that went back.
func TestRecorderSamplesRates(t *testing.T) {
	issued := map[string]uint64{"identity": 100}
	commit := uint64(40)
	now := t0
	r := NewRecorder(Sources{
		Issued:      func() map[string]uint64 { return issued },
		CommitIndex: func() uint64 { return commit },
	}, 10*time.Second, 10)
	r.now = func() time.Time { return now }
	r.sample(t.Context())
	issued, commit, now = map[string]uint64{"identity": 150}, 60, now.Add(10*time.Second)
	r.sample(t.Context())
	issued, commit, now = map[string]uint64{"identity": 10}, 80, now.Add(10*time.Second)
	r.sample(t.Context())
	ids := valuesOf(t, r.store, IDs.Name, "identity")
	if len(ids) != 3 || !math.IsNaN(ids[0]) || ids[1] != 5 || !math.IsNaN(ids[2]) {
		t.Errorf("identity rates %v; want [NaN 5 NaN]", ids)
	}
	if got := valuesOf(t, r.store, CommitRate.Name, "commit_index"); len(got) != 3 || got[1] != 2 || got[2] != 2 {
		t.Errorf("commit rates %v; want [NaN 2 2]", got)
	}
}

// An answer has the leadership changes, null for samples without a value, and a 404's
// error for a series the node does not keep names those it does.
func TestRecorderReads(t *testing.T) {
	var lat Latency
	r := NewRecorder(Sources{
		IdentityLatency: &lat,
		LeaderChanges:   func() []Mark { return []Mark{{AtMs: 5, Leader: "B", Term: 2}} },
	}, time.Second, 10)
	r.sample(t.Context())
	lat.Observe(3 * time.Millisecond)
	r.sample(t.Context())
	a, err := r.Read(IdentityLatency.Name)
	if err != nil {
		t.Fatal(err)
	}
	body, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"intervalMs":1000`, `"capacity":10`, `"name":"p50","values":[null,3.`, `"leaderChanges":[{"atMs":5,"leader":"B","term":2}]`} {
		if !strings.Contains(string(body), want) {
			t.Errorf("answer %s lacks %s", body, want)
		}
	}
	if _, err := r.Read("ids", "cpu"); err == nil || !strings.Contains(err.Error(), `"cpu"`) || !strings.Contains(err.Error(), "identity_latency") {
		t.Errorf("Read(cpu) = %v; want an error naming cpu and the series kept", err)
	}
}
