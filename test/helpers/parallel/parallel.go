// Package parallel sets go test's -parallel for a package whose tests mostly wait: on a
// cluster in virtual time, on real nodes' timers, on processes they started. go test's default,
// the number of cores, then leaves a 2-core machine idle for most of the package's run
// (docs/suite-times.md#the-in-process-packages).
package parallel

import (
	"flag"
	"strconv"
)

// Default sets -parallel to n unless the command line gave it. TestMain calls it after
// flag.Parse and before m.Run.
func Default(n int) {
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if given {
		return
	}
	if err := flag.Set("test.parallel", strconv.Itoa(n)); err != nil {
		panic(err) // only when the testing package no longer has the flag
	}
}
