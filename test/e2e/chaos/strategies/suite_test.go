package strategies

import (
	"testing"

	"github.com/idnode/idnode/test/e2e/chaos/chaostest"
)

// schedules take the strategies with state of their own through faults: a lone node granting
// HiLo ranges from its pool, fiscal series numbered through an isolated and a killed leader,
// and numeric IDs minted under worker leases through the same two faults.
var schedules = []chaostest.ChaosSchedule{
	{Name: "hilo-minority", Run: hiloMinority}, // chaos_hilo_test.go
	{Name: "series", Run: seriesChaos},         // chaos_series_test.go
	{Name: "flake", Run: flakeChaos},           // chaos_flake_test.go
}

// TestChaosStrategies runs the chaos suite (package chaostest) on schedules.
func TestChaosStrategies(t *testing.T) { chaostest.RunChaosSuite(t, schedules) }
