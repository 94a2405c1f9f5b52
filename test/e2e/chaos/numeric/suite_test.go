package numeric

import (
	"testing"

	"github.com/idnode/idnode/test/e2e/chaos/chaostest"
)

// schedules: numeric IDs minted in five processes under Raft-leased workers.
var schedules = []chaostest.ChaosSchedule{
	{Name: "flake", Run: flakeChaos}, // chaos_flake_test.go
}

// TestChaosNumeric runs the chaos suite (package chaostest) on schedules.
func TestChaosNumeric(t *testing.T) { chaostest.RunChaosSuite(t, chaostest.DeployCluster, schedules) }
