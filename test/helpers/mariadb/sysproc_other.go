//go:build unix && !linux

package mariadb

import "syscall"

// sysProcAttr: only Linux can tie a child's life to its parent's; elsewhere Stop does it.
func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{} }
