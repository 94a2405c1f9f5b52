//go:build !linux

package main

import "syscall"

// sysProcAttr: only Linux can tie a child's life to its parent's; elsewhere teardown does it.
func sysProcAttr() *syscall.SysProcAttr { return nil }
