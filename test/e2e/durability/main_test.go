// Package durability tests single real idnode processes across restarts: start-up, readiness
// and stop, data dirs that are damaged, older or foreign, etag and Raft rollbacks, and a full
// disk.
package durability

import (
	"testing"

	"github.com/idnode/idnode/test/e2e/e2etest"
)

func TestMain(m *testing.M) { e2etest.Main(m) }
