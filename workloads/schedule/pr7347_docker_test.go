package schedule

import (
	"testing"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/internal/celltest"
	"github.com/jetstream-chaos/jetstream-chaos/record"
)

// TestIntegrationDockerLateOneShotsOn2120 keeps the late one-shots of
// v2.12.0 reproduced: with no fault at all, schedule-once finds one-shot
// schedules fired past --fire-bound (594 to 659 of about 2,000 in three
// runs under two busy loops, at the cell's 9 schedulers creating every
// 50 ms), and on v2.12.1, which has nats-server PR 7347
// ("Schedule timer management"), the same cell is valid.
//
// On v2.12.0 every stored schedule resets the stream's timer to at least
// 250 ms ahead (nats-server scheduler.go, resetTimer), so a one-shot fires
// late only while creates keep coming less than 250 ms apart; one pause
// that long lets the timer fire. At the defaults (3 schedulers, 200 ms
// between creates) a loaded machine made such pauses, and the control
// missed three times (145 to 166 fired, none late). Nine schedulers
// creating every 50 ms leave no such gap.
func TestIntegrationDockerLateOneShotsOn2120(t *testing.T) {
	// Not parallel: it ran alone while it missed, and still missed.
	rt := celltest.Docker(t)
	for _, tc := range []struct {
		version string
		late    bool
	}{{"v2.12.0", true}, {"v2.12.1", false}} {
		t.Run(tc.version, func(t *testing.T) {
			o := Defaults
			o.Repeating, o.Clients, o.Pause = 0, 3, 50*time.Millisecond
			// v2.12.0 is late only while the leader stores creates less
			// than 250 ms apart; on a machine starved by other work the
			// gaps come anyway (882 and 1,074 fired in 12 s, none late,
			// under CI's -p 3, against about 2,000 with two busy loops).
			// A miss is asked again at another moment, up to 3 times;
			// every attempt is logged. v2.12.1 must be valid at once.
			attempts := 1
			if tc.late {
				attempts = 3
			}
			var cell record.CellResult
			var printed string
			var once checker.Result
			for a := 1; a <= attempts; a++ {
				spec := record.Spec{Workload: Name, Runtime: rt.Name(), Store: t.TempDir(), TimeLimit: 12 * time.Second,
					DirectGet: []bool{false}, ServerVersions: []string{tc.version}, Nemeses: []string{"none"},
					NemesisInterval: 5 * time.Second, Seed: 7347, RecoveryTimeout: time.Minute, CheckTimeout: time.Minute,
					Command: "chaos run --workload schedule --repeating 0 --clients 3 --schedule-pause 50ms --time-limit 12s --server-version " + tc.version}
				cell, printed = celltest.Cell(t, rt, spec, o)
				once = celltest.Checks(cell)[CheckOnce]
				t.Logf("%s, attempt %d: %s %v", tc.version, a, once.Verdict, once.Counts)
				if !tc.late || (once.Verdict == checker.Invalid && once.Counts["late"] > 0) {
					break
				}
			}
			switch {
			case tc.late && (once.Verdict != checker.Invalid || once.Counts["late"] == 0):
				t.Errorf("no late one-shot on %s in %d attempts: %s %v\n%s", tc.version, attempts, once.Verdict, once.Counts, printed)
			case !tc.late && once.Verdict != checker.Valid:
				t.Errorf("%s, which has PR 7347: %s %s\n%s", tc.version, once.Verdict, once.Summary, printed)
			}
			celltest.Recheck(t, cell, Name)
		})
	}
}
