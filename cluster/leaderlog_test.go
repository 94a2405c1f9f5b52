package cluster

import (
	"fmt"
	"testing"
	"time"
)

// The log keeps an hour of changes, at most maxLeaderChanges, one per change of leader.
func TestLeaderLogKeepsTheLastHour(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	l := leaderLog{now: func() time.Time { return now }}
	for i, id := range []string{"A", "A", "", "B", "B", "A"} {
		l.add(LeaderChange{At: now.Add(time.Duration(i) * time.Minute), LeaderID: id, Term: uint64(i)})
	}
	got := l.list()
	if len(got) != 4 || got[0].LeaderID != "A" || got[1].LeaderID != "" || got[2].LeaderID != "B" || got[3].LeaderID != "A" {
		t.Fatalf("changes = %+v; want A, none, B, A", got)
	}
	now = now.Add(LeaderHistory + 2*time.Minute + time.Second) // past the first three
	if got := l.list(); len(got) != 2 || got[0].LeaderID != "B" {
		t.Fatalf("an hour on, changes = %+v; want B, A", got)
	}
	for i := range 2 * maxLeaderChanges {
		l.add(LeaderChange{At: now, LeaderID: fmt.Sprint(i)})
	}
	got = l.list()
	if len(got) != maxLeaderChanges || got[len(got)-1].LeaderID != fmt.Sprint(2*maxLeaderChanges-1) {
		t.Fatalf("after %d changes the log holds %d ending %+v; want the newest %d", 2*maxLeaderChanges, len(got), got[len(got)-1], maxLeaderChanges)
	}
}
