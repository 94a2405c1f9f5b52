package server

import (
	"flag"
	"os"
	"testing"

	"github.com/idnode/idnode/test/helpers/waitparallel"
)

// Nearly all of this package's tests wait on a cluster (in virtual time, or on its timers)
// rather than compute: they run four at a time unless -parallel says.
func TestMain(m *testing.M) {
	flag.Parse()
	waitparallel.Default()
	os.Exit(m.Run())
}
