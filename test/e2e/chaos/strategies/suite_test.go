package strategies

import (
	"testing"

	"github.com/idnode/idnode/test/e2e/chaos/chaostest"
)

// schedules take the strategies with state of their own through faults: a lone node granting
// HiLo ranges from its pool, to clients of its own and to clients that had been running
// through the leader, and fiscal series numbered through an isolated and a killed leader.
// Numeric IDs under worker leases have their schedule in package numeric.
var schedules = []chaostest.ChaosSchedule{
	{Name: "hilo-minority", Run: hiloMinority}, // chaos_hilo_test.go
	{Name: "hilo-survivor", Run: hiloSurvivor}, // chaos_hilo_survivor_test.go
	{Name: "series", Run: seriesChaos},         // chaos_series_test.go
}

// TestChaosStrategies runs the chaos suite (package chaostest) on schedules.
func TestChaosStrategies(t *testing.T) {
	chaostest.RunChaosSuite(t, chaostest.DeployCluster, schedules)
}
