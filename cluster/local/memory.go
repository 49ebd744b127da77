package local

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

var pageSize = int64(os.Getpagesize())

// residentBytes is a process's resident set size from /proc/<pid>/statm
// (second field, in pages): one small read, cheap to sample often.
func residentBytes(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/statm", pid))
	if err != nil {
		return 0, err
	}
	return parseStatm(string(b))
}

func parseStatm(s string) (int64, error) {
	f := strings.Fields(s)
	if len(f) < 2 {
		return 0, fmt.Errorf("statm: unexpected %q", s)
	}
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("statm: %w", err)
	}
	return pages * pageSize, nil
}
