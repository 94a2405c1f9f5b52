//go:build !unix

package main

import "os/exec"

// inOwnGroup: only Unix has process groups; elsewhere cancellation kills make alone, and the
// command's WaitDelay still ends the wait for its output.
func inOwnGroup(*exec.Cmd) {}
