//go:build unix

package queue

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time this process has used, all threads together: on
// a shared machine it measures the checkers where wall time cannot.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
