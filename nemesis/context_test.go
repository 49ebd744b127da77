package nemesis

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/history"
)

func TestWithContext(t *testing.T) {
	tests := []struct {
		what, err, want string
	}{
		{"kill n1", "kill n1: no such container", "kill n1: no such container"},
		{"kill", "kill n1: no such container", "kill n1: no such container"},
		{"resume n1", "cgroup gone", "resume n1: cgroup gone"},
		{"kill n1", "kill n12: gone", "kill n1: kill n12: gone"},
		{"wipe", "wiped already", "wipe: wiped already"},
	}
	for _, tt := range tests {
		if got := withContext(tt.what, errors.New(tt.err)).Error(); got != tt.want {
			t.Errorf("withContext(%q, %q) = %q, want %q", tt.what, tt.err, got, tt.want)
		}
	}
	if withContext("kill n1", nil) != nil {
		t.Error("withContext of nil is not nil")
	}
}

// doubled returns the first run of one to four words that is repeated at
// once ("NOT VERIFIED: NOT VERIFIED:", "resume n1: resume n1:"), or "".
func doubled(s string) string {
	w := strings.Fields(s)
	for k := 1; k <= 4; k++ {
		for i := 0; i+2*k <= len(w); i++ {
			a, b := strings.Join(w[i:i+k], " "), strings.Join(w[i+k:i+2*k], " ")
			if a == b && strings.HasSuffix(a, ":") {
				return a
			}
		}
	}
	return ""
}

// A failing control's error reaches the window once, with each layer's
// context once: the issue saw "NOT VERIFIED: NOT VERIFIED: resume n1:
// resume n1: ...".
func TestNoDoubledWords(t *testing.T) {
	if d := doubled("heal: NOT VERIFIED: NOT VERIFIED: resume n1: resume n1: x"); d != "NOT VERIFIED:" {
		t.Fatalf("doubled finds %q in the issue's example", d)
	}
	tests := []struct {
		list, failing string
		want          string // in the window's detail, once; nN stands for any node
	}{
		{"partition-one+pause", "resume", "resume nN: cgroup gone"},
		{"pause", "resume", "heal: NOT VERIFIED: resume nN: cgroup gone"},
		{"kill", "kill", "injection failed: kill nN: cgroup gone"},
		{"kill", "start", "heal: NOT VERIFIED: start nN: cgroup gone"},
		{"partition-one+kill", "kill", "injection failed: kill nN: cgroup gone"},
		{"wipe", "wipe", "injection failed: wipe nN: cgroup gone"},
		{"wipe", "kill", "injection failed: wipe: kill nN: cgroup gone"},
	}
	for _, tt := range tests {
		t.Run(tt.list+"/"+tt.failing, func(t *testing.T) {
			w, logged := oneFailingWindow(t, tt.list, tt.failing)
			if w.Verified {
				t.Errorf("verified although %s failed: %+v", tt.failing, w)
			}
			for _, line := range append([]string{w.Detail}, logged...) {
				if d := doubled(line); d != "" {
					t.Errorf("%q doubled in %q", d, line)
				}
			}
			want := regexp.MustCompile(strings.ReplaceAll(regexp.QuoteMeta(tt.want), "nN", `n\d`))
			if strings.Count(w.Detail, "cgroup gone") != 1 || !want.MatchString(w.Detail) {
				t.Errorf("detail %q: want %q in it, the error once", w.Detail, tt.want)
			}
		})
	}
}

// TestPartlyInjectedIsInjected: a composite whose second part fails to
// apply still applied its first, which is held and healed; its window is
// injected (not verified), so its history record is info, not fail, and
// what it did to its targets explains their state (a hunt's node-health
// once called a restart's death unexplained because the window said
// "not injected").
func TestPartlyInjectedIsInjected(t *testing.T) {
	w, _ := oneFailingWindow(t, "partition-one+kill", "kill")
	if !w.Injected || w.Verified || len(w.Targets) == 0 {
		t.Fatalf("injected %v, verified %v, targets %v: %s", w.Injected, w.Verified, w.Targets, w.Detail)
	}
	if op := w.Op(); op.Outcome != history.Info {
		t.Errorf("outcome %s, want info", op.Outcome)
	}
	if !strings.Contains(w.Detail, "injection failed") || !strings.Contains(w.Detail, "heal: ") {
		t.Errorf("detail %q names neither the failure nor the heal", w.Detail)
	}
}

// oneFailingWindow runs one window of list on a fake cluster whose control
// failing fails ("cgroup gone"), and returns it with what was logged (the
// final restore logs its errors).
func oneFailingWindow(t *testing.T, list, failing string) (Window, []string) {
	t.Helper()
	faults, err := Parse(list)
	if err != nil {
		t.Fatal(err)
	}
	f, env := testEnv(t, 3)
	f.mu.Lock()
	f.fail[failing] = "cgroup gone"
	f.mu.Unlock()
	var logged []string
	env.Logf = func(format string, args ...any) { logged = append(logged, fmt.Sprintf(format, args...)) }
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ws := Schedule{Faults: stopAfter(1, cancel, faults), Interval: 10 * time.Millisecond, Seed: 7}.Run(ctx, env, nil)
	if len(ws) != 1 {
		t.Fatalf("%d windows", len(ws))
	}
	return ws[0], logged
}
