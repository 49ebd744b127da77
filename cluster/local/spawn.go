package local

import (
	"os/exec"
	"runtime"
	"sync"
)

// Linux sends the parent-death signal when the *thread* that forked the
// child exits, not the process (golang/go#27505). Go may retire a thread, so
// every server is started from one goroutine locked to its thread for the
// life of the process: the signal then fires exactly when the toolkit dies.

type spawnReq struct {
	cmd *exec.Cmd
	err chan error
}

var (
	spawnOnce sync.Once
	spawnCh   chan spawnReq
)

func spawn(cmd *exec.Cmd) error {
	spawnOnce.Do(func() {
		spawnCh = make(chan spawnReq)
		go func() {
			runtime.LockOSThread() // never unlocked, so the thread never exits
			for r := range spawnCh {
				r.err <- r.cmd.Start()
			}
		}()
	})
	r := spawnReq{cmd: cmd, err: make(chan error, 1)}
	spawnCh <- r
	return <-r.err
}
