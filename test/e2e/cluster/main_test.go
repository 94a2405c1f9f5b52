// Package cluster tests three-node clusters of real idnode processes: leadership and
// failover under load, membership changes and joins, catch-up of followers, claims and
// separators across nodes, internal calls, and a wiped node.
package cluster

import (
	"testing"

	"github.com/idnode/idnode/test/e2e/e2etest"
)

func TestMain(m *testing.M) { e2etest.Main(m) }
