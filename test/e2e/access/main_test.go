// Package access tests who may do what against real idnode processes: admin tokens and
// loopback admin, mutual TLS and certificate roles, API keys per database, and a node
// restarted behind the cluster refusing calls a key guards.
package access

import (
	"testing"

	"github.com/idnode/idnode/test/e2e/e2etest"
)

func TestMain(m *testing.M) { e2etest.Main(m) }
