// Package waitparallel sets how many parallel tests a test package runs at once when the
// command line does not say. go test's default, the number of cores, suits tests that
// compute; tests that mostly wait (on a cluster's timers, on real nodes they started) leave a
// 2-core machine idle at that number, so their packages ask for more in their TestMain
// (docs/suite-times.md#the-in-process-packages).
package waitparallel

import (
	"flag"
	"strconv"
)

// Tests is the number such a package runs at once: measured on two cores, four halved the
// waiting packages' wall time for the same CPU, and more added nothing.
const Tests = 4

// Default sets -test.parallel to Tests unless the command line set it. Call it from TestMain,
// after flag.Parse.
func Default() {
	if err := defaultIn(flag.CommandLine, Tests); err != nil {
		panic(err)
	}
}

// defaultIn sets fs's test.parallel to n unless it was set.
func defaultIn(fs *flag.FlagSet, n int) error {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if given {
		return nil
	}
	return fs.Set("test.parallel", strconv.Itoa(n))
}
