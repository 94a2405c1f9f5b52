//go:build !linux

package e2e

import "syscall"

// sysProcAttr: only Linux can tie a child's life to its parent; elsewhere cleanups do it.
func sysProcAttr() *syscall.SysProcAttr { return nil }
