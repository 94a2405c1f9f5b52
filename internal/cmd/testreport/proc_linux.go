package main

import (
	"os"
	"syscall"
	"time"
)

// dieWithParent makes the kernel kill the test binary when testreport cpu dies, so that go
// test's SIGKILL of a binary past its timeout ends the binary, not only its wrapper.
func dieWithParent() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// cpuTime is the CPU time an ended process used, with the children it waited for.
func cpuTime(ps *os.ProcessState) (user, system time.Duration, ok bool) {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, 0, false
	}
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano()), true
}
