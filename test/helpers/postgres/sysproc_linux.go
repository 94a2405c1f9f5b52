package postgres

import "syscall"

// sysProcAttr makes the kernel kill initdb and the server if the process that started them
// dies without stopping them, so no server outlives its test.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
