package observe

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
)

// TestCheckFixtures judges each stored cell of testdata/health (its
// README says what happened in each): OOM kills, restarts and deaths no
// fault explains are invalid; one a fault aimed at the node explains is
// not, ties with the window included; what could not be read is unknown.
func TestCheckFixtures(t *testing.T) {
	for _, tc := range []struct {
		cell                             string
		want                             checker.Verdict
		oom, restarts, deaths, explained int
		says                             string
	}{
		{"clean", checker.Valid, 0, 0, 0, 0, "no OOM kill, restart or death nobody asked for on n1, n2, n3 (120 state readings)"},
		{"kill_explained", checker.Valid, 0, 0, 0, 1, "explained by the faults aimed at them: n3 died (down, exit code 137) between 4.0s and 4.3s (kill n3, 4.0s-6.0s)"},
		{"oom_no_restart", checker.Invalid, 1, 0, 0, 0, "1 OOM kill(s), 0 restart(s) by the runtime and 0 death(s) nobody asked for: n2 OOM kill #1 (seen between 7.0s and 7.3s)"},
		{"oom_restarted", checker.Invalid, 1, 0, 0, 0, "n2 OOM kill #1 (seen between 7.0s and 7.3s)"},
		{"restart_unexplained", checker.Invalid, 0, 1, 0, 0, "n1 restart #1 by the runtime between 8.0s and 8.2s, no fault aimed at n1 then"},
		{"restart_explained", checker.Valid, 0, 0, 0, 1, "n3 restart #1 by the runtime between 5.0s and 5.3s (corrupt n3, 4.0s-6.0s)"},
		{"died_unexplained", checker.Invalid, 0, 0, 1, 0, "n1 died (down, exit code 2) between 8.0s and 8.2s, no fault aimed at n1 then"},
		{"died_fault_not_injected", checker.Invalid, 0, 0, 1, 0, "n3 died (down, exit code 137)"},
		// A composite fault whose restart part was applied and healed though
		// its partition part failed, stored (as before the fix) as failed.
		{"died_fault_partly_injected", checker.Valid, 0, 0, 0, 1, "(partition-leader+restart n3, 4.0s-6.0s)"},
		{"tie_window_ends_when_asked", checker.Valid, 0, 0, 0, 1, "(kill n3, 4.0s-6.0s)"},
		{"window_ends_before", checker.Invalid, 0, 0, 1, 0, "no fault aimed at n3 then"},
		{"zero_length_window", checker.Valid, 0, 0, 0, 1, "(kill n3, 6.1s-6.1s)"},
		{"window_starts_after", checker.Invalid, 0, 0, 1, 0, "no fault aimed at n3 then"},
		{"cut_short", checker.Unknown, 0, 0, 0, 0, "until 10.0s, where nodes.jsonl ends without its stop line"},
		{"unread_node", checker.Unknown, 0, 0, 0, 0, "no state of n2 (inspect n2: context deadline exceeded) was read"},
		{"no_history", checker.Unknown, 0, 0, 0, 0, "n1 restart #1 by the runtime between 8.0s and 8.2s, and the fault windows that could explain it were not read: no history.jsonl"},
	} {
		t.Run(tc.cell, func(t *testing.T) {
			r, err := Check(filepath.Join("testdata", "health", tc.cell))
			if err != nil || r == nil {
				t.Fatalf("Check: %v, %v", r, err)
			}
			c := r.Counts
			if r.Name != CheckName || r.Verdict != tc.want || c[CountOOMKills] != tc.oom || c[CountRestarts] != tc.restarts ||
				c[CountDeaths] != tc.deaths || c[CountExplained] != tc.explained {
				t.Errorf("%s %s %v: %s", r.Name, r.Verdict, c, r.Summary)
			}
			if !strings.Contains(r.Summary, tc.says) {
				t.Errorf("summary %q lacks %q", r.Summary, tc.says)
			}
			if (r.Verdict == checker.Unknown) != (r.Reason != "") {
				t.Errorf("verdict %s with reason %q", r.Verdict, r.Reason)
			}
			if r.Verdict == checker.Invalid && len(r.Anomalies) != tc.oom+tc.restarts+tc.deaths {
				t.Errorf("%d anomalies: %+v", len(r.Anomalies), r.Anomalies)
			}
		})
	}
}

// TestCheckRefuses: a cell without nodes.jsonl was stored before the
// observer and gets no node-health; a malformed one is an error naming
// the file and the line.
func TestCheckRefuses(t *testing.T) {
	if r, err := Check(t.TempDir()); r != nil || err != nil {
		t.Errorf("a cell without nodes.jsonl: %+v, %v", r, err)
	}
	_, err := Check(filepath.Join("testdata", "health", "malformed"))
	if err == nil || !strings.Contains(err.Error(), filepath.Join("malformed", File)+":4:") {
		t.Errorf("malformed nodes.jsonl: %v", err)
	}
}
