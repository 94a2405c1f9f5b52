package server

import (
	"flag"
	"os"
	"testing"
)

// parallelTests is how many of this package's tests run at once unless -parallel says: nearly
// all wait on a cluster (in virtual time, or on its timers) rather than compute, so go test's
// default, the number of cores, leaves a 2-core machine idle for most of the run
// (docs/suite-times.md#the-in-process-packages).
const parallelTests = "4"

func TestMain(m *testing.M) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		if err := flag.Set("test.parallel", parallelTests); err != nil {
			panic(err)
		}
	}
	os.Exit(m.Run())
}
