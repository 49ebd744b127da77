package docker

import (
	"os"
	"strings"
	"testing"
)

// TestOwnedBy: a pid is the container's only when its cgroup names it.
func TestOwnedBy(t *testing.T) {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	line := strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0])
	own := line[strings.LastIndex(line, ":")+1:] // a path in our own cgroup, as an "id" found there
	cases := []struct {
		pid  int
		id   string
		want bool
	}{
		{os.Getpid(), "0123456789abcdef-not-a-container", false},
		{os.Getpid(), own + "x-not-there", false},
		{0, own, false},
		{-1, own, false},
		{os.Getpid(), "", false},
	}
	if own != "" && own != "/" {
		cases = append(cases, struct {
			pid  int
			id   string
			want bool
		}{os.Getpid(), own, true})
	}
	for _, c := range cases {
		if got := ownedBy(c.pid, c.id); got != c.want {
			t.Errorf("ownedBy(%d, %q) = %v, want %v", c.pid, c.id, got, c.want)
		}
	}
}
