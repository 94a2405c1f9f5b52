package mariadb

import "syscall"

// sysProcAttr makes the kernel kill the server if the process that started it dies without
// stopping it, so no server outlives its test.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
