// Package operator runs the chaos suite's schedules of operator mistakes and of the
// clients' fiscal series and numeric IDs through faults (package chaostest has the suite).
package operator

import (
	"testing"

	"github.com/idnode/idnode/test/e2e/e2etest"
)

func TestMain(m *testing.M) { e2etest.Main(m) }
