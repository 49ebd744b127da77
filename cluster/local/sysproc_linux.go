//go:build linux

package local

import "syscall"

// sysProcAttr puts the server in its own process group (a Ctrl-C meant for
// the toolkit does not reach it directly) and has the kernel SIGKILL it when
// the thread that started it dies, which is when the toolkit dies: see
// spawn, which starts every process from one thread that never exits.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
