// Package network runs the chaos suite's schedules of network faults and frozen processes
// (package chaostest has the suite).
package network

import (
	"testing"

	"github.com/idnode/idnode/test/e2e/e2etest"
)

func TestMain(m *testing.M) { e2etest.Main(m) }
