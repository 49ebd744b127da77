//go:build unix

package external

import (
	"os/exec"
	"syscall"
)

// ownGroup starts the hook in its own process group and makes a cancel
// kill the whole group.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
