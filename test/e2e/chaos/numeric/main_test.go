// Package numeric runs the chaos suite's schedule for numeric IDs: minters under worker leases
// through an isolated and a killed leader (package chaostest has the suite). It is a package of
// its own because the strategies' two other schedules hold a node without a majority for a
// minute between them, and on a small, busy machine the three overran one package's budget.
package numeric

import (
	"testing"

	"github.com/idnode/idnode/test/e2e/e2etest"
)

func TestMain(m *testing.M) { e2etest.Main(m) }
