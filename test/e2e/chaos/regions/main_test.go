// Package regions runs the chaos suite's schedules on five nodes in three regions, 2 + 2 + 1,
// with a preferred region (package chaostest has the suite).
package regions

import (
	"testing"

	"github.com/idnode/idnode/test/e2e/e2etest"
)

func TestMain(m *testing.M) { e2etest.Main(m) }
