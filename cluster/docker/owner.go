package docker

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// An owner label names the process that created an object as
// host/pid/start, where start is the process start time from /proc (so a
// reused pid is not mistaken for the owner). Sweep keeps objects whose owner
// still runs, so concurrent runs on one daemon do not remove each other's
// clusters.

var selfOwner = ownerOf(os.Getpid())

func hostname() string {
	h, _ := os.Hostname()
	return h
}

func ownerOf(pid int) string {
	return fmt.Sprintf("%s/%d/%s", hostname(), pid, procStart(pid))
}

// procStart is field 22 of /proc/<pid>/stat (start time in clock ticks since
// boot), or "" where there is no /proc.
func procStart(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	return statStart(string(b))
}

func statStart(stat string) string {
	// The command name (field 2) may hold spaces and parentheses: fields
	// are counted after its last ')'.
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return ""
	}
	f := strings.Fields(stat[i+1:])
	if len(f) < 20 {
		return ""
	}
	return f[19] // field 22 overall; f[0] is field 3
}

// ownerAlive says whether an object's creator is another process that still
// runs. Our own objects count as dead (Sweep at exit removes them). An owner
// on another host cannot be checked and counts as alive: never remove what
// might be in use.
func ownerAlive(owner string) bool {
	if owner == selfOwner {
		return false
	}
	parts := strings.Split(owner, "/")
	if len(parts) != 3 {
		return false // not ours to protect: no or a malformed label
	}
	if parts[0] != hostname() {
		return true
	}
	pid, err := strconv.Atoi(parts[1])
	if err != nil || pid <= 0 {
		return false
	}
	if start := procStart(pid); start != "" || parts[2] != "" {
		return start == parts[2]
	}
	return syscall.Kill(pid, 0) == nil // no /proc: pid liveness is all we have
}
