//go:build !unix

package queue

import "time"

// cpuTime is unknown off unix: the cpu-s/op metric reads 0.
func cpuTime() time.Duration { return 0 }
