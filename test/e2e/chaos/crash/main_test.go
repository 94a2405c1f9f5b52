// Package crash runs the chaos suite's schedules of crashes and restarts (package chaostest
// has the suite).
package crash

import (
	"testing"

	"github.com/idnode/idnode/test/e2e/e2etest"
)

func TestMain(m *testing.M) { e2etest.Main(m) }
