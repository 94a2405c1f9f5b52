package chaostest

import (
	"slices"
	"strings"
	"testing"
)

// docker ps's lines name each container's service; a container of the project run outside
// compose has none and is not a node's, and a service's containers are all kept, so that one
// with two is refused rather than one picked.
func TestContainersByService(t *testing.T) {
	out := "aaa idnode-a\nbbb idnode-b\nccc \nddd idnode-b\n\n"
	got := containersByService(out)
	if !slices.Equal(got["idnode-a"], []string{"aaa"}) || !slices.Equal(got["idnode-b"], []string{"bbb", "ddd"}) || len(got) != 2 {
		t.Errorf("containersByService(%q) = %v", out, got)
	}
}

// A failed schedule's events are the lines that say who led and what a node lost, from the
// whole log, not its refusals; past chaosEventLines they are counted, not shown.
func TestEventLines(t *testing.T) {
	lead := `idnode-a_1  | {"level":"INFO","msg":"entering leader state","node":"A"}`
	cleared := `idnode-b_1  | {"level":"WARN","msg":"clearing log suffix","from":844,"to":850}`
	noise := `idnode-c_1  | {"level":"INFO","msg":"rejecting pre-vote request since we have a leader"}`
	logs := lead + "\n" + noise + "\n" + noise + "\n" + cleared + "\n"
	if got, want := eventLines(logs), lead+"\n"+cleared; got != want {
		t.Errorf("eventLines = %q, want %q", got, want)
	}
	many := strings.Repeat(lead+"\n", chaosEventLines+2)
	got := strings.Split(eventLines(many), "\n")
	if len(got) != chaosEventLines+1 || got[chaosEventLines] != "(2 more)" {
		t.Errorf("eventLines of %d events: %d lines ending %q, want %d ending \"(2 more)\"", chaosEventLines+2, len(got), got[len(got)-1], chaosEventLines+1)
	}
}
