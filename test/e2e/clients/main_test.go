// Package clients tests the client side against real idnode processes: the Go client's
// failover and retries, its programs, numeric IDs under leases, HiLo ranges and pools, fiscal
// series, and the web console in a headless browser.
package clients

import (
	"testing"

	"github.com/idnode/idnode/test/e2e/e2etest"
)

func TestMain(m *testing.M) { e2etest.Main(m) }
