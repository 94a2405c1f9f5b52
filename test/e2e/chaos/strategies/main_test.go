// Package strategies runs the chaos suite's schedules for the strategies with state of their
// own: HiLo pools and fiscal series through faults (package chaostest has the suite).
package strategies

import (
	"testing"

	"github.com/idnode/idnode/test/e2e/e2etest"
)

func TestMain(m *testing.M) { e2etest.Main(m) }
