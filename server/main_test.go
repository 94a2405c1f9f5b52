package server

import (
	"flag"
	"os"
	"testing"

	"github.com/idnode/idnode/test/helpers/parallel"
)

func TestMain(m *testing.M) {
	flag.Parse()
	// Nearly every test waits on a cluster, in virtual time or on its timers, rather than
	// computes.
	parallel.Default(4)
	os.Exit(m.Run())
}
