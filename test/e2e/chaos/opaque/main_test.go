// Package opaque runs the chaos suite's schedule for opaque identities: forms of an opaque
// collection issued through a killed leader, read back to their values with Explain and checked
// as every identity history is (package chaostest has the suite). It is a package of its own so
// that the other packages' schedules keep their budgets.
package opaque

import (
	"testing"

	"github.com/idnode/idnode/test/e2e/e2etest"
)

func TestMain(m *testing.M) { e2etest.Main(m) }
