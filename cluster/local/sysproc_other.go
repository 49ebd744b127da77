//go:build !linux

package local

import "syscall"

// sysProcAttr puts the server in its own process group. Only Linux has a
// parent-death signal, so elsewhere a toolkit killed with SIGKILL can leave
// servers behind; Close still kills them.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
