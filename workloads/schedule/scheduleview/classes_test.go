package scheduleview

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/findings"
	"github.com/jetstream-chaos/jetstream-chaos/history"
	"github.com/jetstream-chaos/jetstream-chaos/record"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/schedule"
)

// A stored cell whose acknowledged one-shot never fired gets a
// finding.md of its class, with ADR-51's promise and the workload in
// words; the same cell with the firing read back gets none.
func TestFindingOfANeverFiredSchedule(t *testing.T) {
	due := time.Date(2026, 12, 4, 12, 0, 10, 0, time.UTC)
	for _, withFiring := range []bool{false, true} {
		runDir := t.TempDir()
		spec, _ := json.Marshal(record.Spec{Workload: schedule.Name})
		if err := os.WriteFile(filepath.Join(runDir, record.SpecFile), spec, 0o644); err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(runDir, "cell")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		s := schedule.Schedule{Subject: "SCHED.sched.o0-0", Target: "SCHED.target.o0-0", Kind: schedule.KindAt, At: due.UnixNano(), Body: "o0-0",
			Seq: 1, WallInvoke: due.Add(-3 * time.Second).UnixNano(), WallComplete: due.Add(-3*time.Second + time.Millisecond).UnixNano()}
		data, _ := json.Marshal(s)
		ops := []history.Op{{Type: schedule.OpCreate, Client: 0, Key: s.Subject, Outcome: history.OK, Invoke: 1, Complete: 2, Data: data}}
		if err := history.WriteLines(filepath.Join(dir, "history.jsonl"), ops); err != nil {
			t.Fatal(err)
		}
		final := schedule.Final{Complete: true, ReadAt: due.Add(time.Minute).UnixNano()}
		if withFiring {
			final.Firings = []schedule.Firing{{Seq: 2, Target: s.Target, Scheduler: s.Subject, Next: schedule.NextPurge, Body: "o0-0",
				Time: due.Add(time.Millisecond).UnixNano()}}
		}
		b, _ := json.Marshal(final)
		if err := os.WriteFile(filepath.Join(dir, schedule.FinalFile), b, 0o644); err != nil {
			t.Fatal(err)
		}
		o, _ := json.Marshal(schedule.Defaults)
		if err := os.WriteFile(filepath.Join(dir, schedule.SettingsFile), o, 0o644); err != nil {
			t.Fatal(err)
		}
		checks, err := schedule.Check(dir, checker.Options{})
		if err != nil {
			t.Fatal(err)
		}
		res := record.CellResult{Cell: record.Cell{Settings: o}, Checks: checks, Verdict: record.VerdictOf(checks)}
		fs, err := findings.WriteResult(dir, res)
		if err != nil {
			t.Fatal(err)
		}
		if withFiring {
			if len(fs) != 0 {
				t.Errorf("findings %+v with the firing read back", fs)
			}
			continue
		}
		if len(fs) != 1 || fs[0].Class != "schedule-never-fired" {
			t.Fatalf("findings %+v; want one schedule-never-fired", fs)
		}
		md, _ := os.ReadFile(filepath.Join(dir, findings.FileName))
		for _, want := range []string{"An acknowledged one-shot message schedule never fired", "ADR-51",
			"schedule SCHED.sched.o0-0 (@at 12:00:10.000, acknowledged at sequence 1) never fired",
			"`allow_msg_schedules: true`", "`Nats-Schedule: @at <now + 3s, on a whole second>`"} {
			if !strings.Contains(string(md), want) {
				t.Errorf("finding.md lacks %q:\n%s", want, md)
			}
		}
	}
}

// Every kind the checks flag has a class: the kinds are read from the
// checks' source.
func TestEveryFlaggedKindHasAClass(t *testing.T) {
	flagged := map[string]map[string]bool{}
	for file, check := range map[string]string{"check_once.go": schedule.CheckOnce, "check_repeat.go": schedule.CheckRepeat, "check_removed.go": schedule.CheckRemoved} {
		src, err := os.ReadFile(filepath.Join("..", file))
		if err != nil {
			t.Fatal(err)
		}
		flagged[check] = map[string]bool{}
		for _, line := range strings.Split(string(src), "\n") {
			if i := strings.Index(line, `b.Flag("`); i >= 0 {
				rest := line[i+len(`b.Flag("`):]
				flagged[check][rest[:strings.Index(rest, `"`)]] = true
			}
		}
	}
	classed := map[string]bool{}
	for _, c := range findings.Classes() {
		classed[c.Check+"/"+c.Kind] = true
	}
	n := 0
	for check, kinds := range flagged {
		for k := range kinds {
			n++
			if !classed[check+"/"+k] {
				t.Errorf("%s flags %s, which has no finding class", check, k)
			}
		}
	}
	if n < 10 {
		t.Errorf("read only %d flagged kinds from the checks", n)
	}
}
