//go:build !testclock

package main

// The release build has no test clock: IDNODE_TEST_CLOCK_FILE is an unknown variable to it,
// warned about and ignored, and the node's wall clock is the machine's (testclock_on.go is
// the test build's).

// testClockVars are the variables this build reads besides the flags': none.
var testClockVars []string

// applyTestClock does nothing in the release build.
func (*config) applyTestClock(environ) {}
