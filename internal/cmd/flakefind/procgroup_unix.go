//go:build unix

package main

import (
	"os/exec"
	"syscall"
)

// killGroupOnCancel puts cmd in a process group of its own and makes its cancellation kill
// the whole group: go test's test binaries with it.
func killGroupOnCancel(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
