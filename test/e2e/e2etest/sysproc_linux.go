//go:build linux

package e2etest

import "syscall"

// sysProcAttr makes the kernel kill a node if the test binary dies without running its
// cleanups (a panic on -timeout, say), so no daemon outlives the test run.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
