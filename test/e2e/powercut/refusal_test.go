package powercut

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPowerCutRefusalIsABrokenPromiseUnlessTheTestDamagedTheNode empties a follower's
// node.json itself, which no power cut of a correct build does: restarted, the node refuses
// to start. restart must count that refusal as a broken promise until the test declares its
// damage, and then take it as the answer to that damage.
func TestPowerCutRefusalIsABrokenPromiseUnlessTheTestDamagedTheNode(t *testing.T) {
	pc := startPowerCluster(t, "")
	follower := pc.c.Others(pc.c.Leader())[0]
	pc.c.Node(follower).Kill9()
	if err := os.WriteFile(filepath.Join(pc.mounts[follower].Dir, "node.json"), nil, 0o600); err != nil {
		t.Fatal(err)
	}

	if serving := pc.restart(follower); len(serving) != 0 {
		t.Fatalf("node %s serves on an empty node.json", follower)
	}
	if len(pc.problems) != 1 || !strings.Contains(pc.problems[0], "refused to start") {
		t.Fatalf("an undeclared refusal to start gave the problems %q; want one that says the node refused to start", pc.problems)
	}

	pc.problems = nil
	pc.damage(follower, "node.json emptied by the test")
	if serving := pc.restart(follower); len(serving) != 0 {
		t.Fatalf("node %s serves on an empty node.json", follower)
	}
	if len(pc.problems) != 0 {
		t.Fatalf("a refusal after the test's declared damage gave the problems %q; want none", pc.problems)
	}
	if len(pc.notes) != 1 || !strings.Contains(pc.notes[0], "node.json") {
		t.Fatalf("a refusal after the test's declared damage was noted as %q; want a note naming node.json", pc.notes)
	}
}
