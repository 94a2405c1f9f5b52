// Package ops tests what an operator does with real idnode processes and their tools: idctl,
// backups and recovery, metrics and logs, the Docker image and compose deployment, the
// documentation's tours, rolling upgrades, and the sweep of compose projects a run left.
package ops

import (
	"testing"

	"github.com/idnode/idnode/test/e2e/e2etest"
)

func TestMain(m *testing.M) { e2etest.Main(m) }
