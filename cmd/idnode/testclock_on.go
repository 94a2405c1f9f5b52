//go:build testclock

package main

import "github.com/idnode/idnode/internal/testclock"

// testClockFileEnv names the file whose offset this build adds to the node's wall clock
// (package testclock). Only a binary built with -tags testclock reads it: the release build
// warns that it is an unknown variable and ignores it (testclock_off.go).
const testClockFileEnv = "IDNODE_TEST_CLOCK_FILE"

// testClockVars are the variables this build reads besides the flags'.
var testClockVars = []string{testClockFileEnv}

// applyTestClock makes the node's wall clock the machine's plus the offset in the file that
// IDNODE_TEST_CLOCK_FILE names, re-read as it changes, and says so in the log.
func (c *config) applyTestClock(env environ) {
	path := env.get(testClockFileEnv)
	if path == "" {
		return
	}
	c.now = testclock.New(path).Now
	c.warnings = append(c.warnings, "this is a test build (tag testclock): the node's wall clock is the machine's plus the offset in "+path+
		" ("+testClockFileEnv+"); never run it in production")
}
