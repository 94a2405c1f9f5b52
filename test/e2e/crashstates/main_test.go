// Package crashstates is the exhaustive power-cut test (CrashMonkey's method): three real
// idnode processes run a workload of a few seconds with each data dir on a lossyfs mount that
// records every change and fsync, and then, for each fsync point of the recording, the
// cluster is started on the state a power cut just after that fsync would have left, and
// checked as the power-cut schedules check (test/e2e/powercut). DESIGN.md in this directory
// says which states are explored and why they are the ones a real cut could leave.
package crashstates

import (
	"testing"

	"github.com/idnode/idnode/test/e2e/e2etest"
)

func TestMain(m *testing.M) { e2etest.Main(m) }
