package schedule

import (
	"testing"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/internal/celltest"
	"github.com/jetstream-chaos/jetstream-chaos/record"
)

// TestIntegrationDockerLateOneShotsOn2120 keeps the late one-shots of
// v2.12.0 reproduced: with no fault at all, schedule-once finds one-shot
// schedules fired past --fire-bound (594 to 659 of about 2,000 in three
// runs under two busy loops, at the cell's 9 schedulers creating every
// 50 ms); on v2.12.1, which has nats-server PR 7347 ("Schedule timer
// management"), the same cell is valid (TestIntegrationDockerOneShotsOnTimeOn2121).
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
	// v2.12.0 is late only while the leader stores creates less than
	// 250 ms apart; on a machine starved by other work the gaps come
	// anyway (882 and 1,074 fired in 12 s, none late, under CI's -p 3,
	// against about 2,000 with two busy loops). A miss is asked again at
	// another moment, up to 3 times; every attempt is logged.
	const attempts = 3
	var cell record.CellResult
	var printed string
	var once checker.Result
	for a := 1; a <= attempts; a++ {
		cell, printed, once = oneShotsCell(t, rt, "v2.12.0")
		t.Logf("v2.12.0, attempt %d: %s %v", a, once.Verdict, once.Counts)
		if once.Verdict == checker.Invalid && once.Counts["late"] > 0 {
			break
		}
	}
	if once.Verdict != checker.Invalid || once.Counts["late"] == 0 {
		t.Errorf("no late one-shot on v2.12.0 in %d attempts: %s %v\n%s", attempts, once.Verdict, once.Counts, printed)
	}
	celltest.Recheck(t, cell, Name)
}

// TestIntegrationDockerOneShotsOnTimeOn2121 is the control's other side:
// the same cell on v2.12.1, which has PR 7347, is valid at once. It runs
// in parallel with the package's other cells (a fixed release fires on
// time under load too: 1,067 fired, none late, beside two other packages),
// so the sequential phase holds only the load-sensitive v2.12.0 side.
func TestIntegrationDockerOneShotsOnTimeOn2121(t *testing.T) {
	t.Parallel()
	rt := celltest.Docker(t)
	cell, printed, once := oneShotsCell(t, rt, "v2.12.1")
	t.Logf("v2.12.1: %s %v", once.Verdict, once.Counts)
	if once.Verdict != checker.Valid {
		t.Errorf("v2.12.1, which has PR 7347: %s %s\n%s", once.Verdict, once.Summary, printed)
	}
	celltest.Recheck(t, cell, Name)
}

// oneShotsCell runs the PR 7347 cell on version: one-shots only, 9
// schedulers creating every 50 ms for 12 s, no fault.
func oneShotsCell(t *testing.T, rt cluster.Runtime, version string) (record.CellResult, string, checker.Result) {
	t.Helper()
	o := Defaults
	o.Repeating, o.Clients, o.Pause = 0, 3, 50*time.Millisecond
	spec := record.Spec{Workload: Name, Runtime: rt.Name(), Store: t.TempDir(), TimeLimit: 12 * time.Second,
		DirectGet: []bool{false}, ServerVersions: []string{version}, Nemeses: []string{"none"},
		NemesisInterval: 5 * time.Second, Seed: 7347, RecoveryTimeout: time.Minute, CheckTimeout: time.Minute,
		Command: "chaos run --workload schedule --repeating 0 --clients 3 --schedule-pause 50ms --time-limit 12s --server-version " + version}
	cell, printed := celltest.Cell(t, rt, spec, o)
	return cell, printed, celltest.Checks(cell)[CheckOnce]
}
