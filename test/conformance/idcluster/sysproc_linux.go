//go:build linux

package main

import "syscall"

// sysProcAttr makes the kernel kill a node when idcluster dies without its teardown (killed
// by a runner that crashed), so no node outlives the run.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
