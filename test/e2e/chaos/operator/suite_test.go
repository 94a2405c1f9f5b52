package operator

import (
	"testing"

	"github.com/idnode/idnode/test/e2e/chaos/chaostest"
)

// schedules are operators' and machines' faults: a node whose volume is wiped coming back with
// its old flags, adds for a tag or address in use, a join that fails half-way, a seeded random
// mix of faults, and a data dir gone back to an older copy of itself.
var schedules = []chaostest.ChaosSchedule{
	{Name: "wipe-and-restart", Run: wipeAndRestart},
	{Name: "duplicate-tag-add", Run: duplicateTagAdd},
	{Name: "failed-join", Run: failedJoin},
	{Name: "nemesis-mix", Run: nemesisMix},
	{Name: "rollback", Run: rollback}, // chaos_rollback_test.go
}

// TestChaosOperator runs the chaos suite (package chaostest) on schedules.
func TestChaosOperator(t *testing.T) { chaostest.RunChaosSuite(t, chaostest.DeployCluster, schedules) }
