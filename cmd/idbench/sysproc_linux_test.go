//go:build linux

package main

import "syscall"

// sysProcAttr makes the kernel kill a started server if the test binary dies without running
// its cleanups, so no daemon outlives the test.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
