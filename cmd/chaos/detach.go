package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// detachTimeout bounds the wait for a detached cluster: the first start
// also builds nats-server and the node image.
const detachTimeout = 10 * time.Minute

// upDetached runs `chaos cluster up` again, without --detach, in its own
// session with its output in dir/up.log, and returns once that process has
// written its pid file (it does so once the cluster is ready), or fails
// with the log's tail if it exits first. `chaos cluster down` stops it as
// it stops an attached one.
func upDetached(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return harnessErr(err)
	}
	for _, f := range []string{"pid", "nodes.json"} {
		_ = os.Remove(filepath.Join(dir, f))
	}
	self, err := os.Executable()
	if err != nil {
		return harnessErr(err)
	}
	logPath := filepath.Join(dir, "up.log")
	log, err := os.Create(logPath)
	if err != nil {
		return harnessErr(err)
	}
	defer log.Close()
	child := exec.Command(self, withoutDetach(os.Args[1:])...)
	child.Stdout, child.Stderr = log, log
	child.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // no terminal: Ctrl-C here does not reach it
	if err := child.Start(); err != nil {
		return harnessErr(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- child.Wait() }()
	deadline := time.After(detachTimeout)
	for {
		select {
		case err := <-exited:
			return harnessErr(fmt.Errorf("the cluster did not come up (%v); the end of %s:\n%s", err, logPath, tail(logPath, 15)))
		case <-deadline:
			_ = child.Process.Signal(syscall.SIGTERM)
			return harnessErr(fmt.Errorf("the cluster was not ready within %s; see %s", detachTimeout, logPath))
		case <-time.After(200 * time.Millisecond):
		}
		if pid, err := readPid(dir); err == nil && pid == child.Process.Pid {
			b, _ := os.ReadFile(logPath)
			fmt.Print(string(b))
			fmt.Printf("detached: pid %d, output in %s\n", pid, logPath)
			return nil
		}
	}
}

// withoutDetach drops --detach from the arguments.
func withoutDetach(args []string) []string {
	var out []string
	for _, a := range args {
		if a == "--detach" || strings.HasPrefix(a, "--detach=") {
			continue
		}
		out = append(out, a)
	}
	return out
}

func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
