//go:build !linux

package e2etest

import "syscall"

// sysProcAttr: only Linux can tie a child's life to its parent; elsewhere cleanups do it.
func sysProcAttr() *syscall.SysProcAttr { return nil }

// allStopped: only Linux shows a thread's state in /proc; elsewhere a stop is taken on trust.
func allStopped(int) error { return nil }
