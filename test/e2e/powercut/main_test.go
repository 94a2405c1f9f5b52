// Package powercut cuts the power under three real idnode processes: each node's data dir is on
// its own lossyfs mount (test/helpers/lossyfs), which forgets what was not fsynced, and a
// schedule kills nodes with SIGKILL and cuts their mounts under load from the Go client, then
// restarts them on the same data dirs and checks that nothing acknowledged was lost or handed
// out twice.
package powercut

import (
	"testing"

	"github.com/idnode/idnode/test/e2e/e2etest"
)

func TestMain(m *testing.M) { e2etest.Main(m) }
