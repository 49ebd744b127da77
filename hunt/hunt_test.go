package hunt

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/nemesis"
	"github.com/jetstream-chaos/jetstream-chaos/record"
)

// TestPlans: every plan is a --nemesis value chaos run takes; clock plans
// have no trigger; aimed plans arm one; single-writer never has more
// clients than keys.
func TestPlans(t *testing.T) {
	m := newMenu(func(string) bool { return true })
	aimedSeen := 0
	for _, mode := range []Mode{Clock, Aimed} {
		for i := range 300 {
			p := m.plan(rand.New(rand.NewPCG(7, uint64(i))), weights{}, mode, "v2.15.3")
			fs, err := nemesis.Parse(p.Nemesis)
			if err != nil {
				t.Fatalf("%s plan %d: --nemesis %q: %v", mode, i, p.Nemesis, err)
			}
			armed := 0
			for _, f := range fs {
				if _, ok := f.(nemesis.Triggered); ok {
					armed++
				}
			}
			switch {
			case mode == Clock && armed > 0:
				t.Fatalf("clock plan with a trigger: %q", p.Nemesis)
			case mode == Aimed && armed > 0:
				aimedSeen++
			}
			if p.Knobs["pattern"] == "single-writer" && atoi(p.Knobs["clients"]) > atoi(p.Knobs["keys"]) {
				t.Fatalf("single-writer with %s clients over %s keys", p.Knobs["clients"], p.Knobs["keys"])
			}
		}
	}
	if aimedSeen < 250 {
		t.Fatalf("only %d of 300 aimed plans armed a trigger", aimedSeen)
	}
}

// TestWeightsMoveOn: a feature whose weight is cut is drawn less.
func TestWeightsMoveOn(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	w := weights{"fault:kill": 1.0 / 64}
	kills := 0
	for range 2000 {
		if draw(r, w, "fault:", []string{"kill", "pause"}) == "kill" {
			kills++
		}
	}
	if kills > 100 {
		t.Fatalf("kill drawn %d of 2000 times at weight 1/64", kills)
	}
}

// fakeRuns is an Executor: a run whose schedule partitions the leader
// finds failed-write-applied, one that kills finds lost-write too; each
// run takes 30 s of the fake clock; a trigger on snapshot never fires.
type fakeRuns struct {
	now  time.Time
	runs int
}

func (f *fakeRuns) clock() time.Time { return f.now }

func (f *fakeRuns) exec(_ context.Context, store string, args []string) (string, int, error) {
	f.runs++
	f.now = f.now.Add(30 * time.Second)
	nem := args[indexOf(args, "--nemesis")+1]
	dir := filepath.Join(store, "run-"+string(rune('a'+f.runs)))
	cell := record.CellResult{Cell: record.Cell{Name: "direct-get-off"}, Dir: "direct-get-off", Verdict: record.Valid}
	anomaly := func(check, kind string) {
		cell.Checks = append(cell.Checks, checker.Result{Name: check, Verdict: checker.Invalid, Summary: kind + " found",
			Anomalies: []checker.Anomaly{{Kind: kind}}})
		cell.Verdict = record.Invalid
	}
	if strings.Contains(nem, "partition-leader") {
		anomaly("stream-integrity", "failed_write_applied")
	}
	if strings.Contains(nem, "kill") {
		anomaly("stream-integrity", "lost_write")
	}
	if strings.Contains(nem, "@") {
		cell.Watch = &record.WatchSummary{Events: map[string]int{"leader-change": 2}}
	}
	if i := strings.Index(nem, "@snapshot"); i >= 0 {
		cell.Faults = append(cell.Faults, nemesis.Window{Trigger: "snapshot", Detail: "never fired: no snapshot event"})
	}
	res := record.Result{Command: "chaos run " + strings.Join(args, " "), Cells: []record.CellResult{cell}, Verdict: cell.Verdict}
	if err := os.MkdirAll(filepath.Join(dir, "direct-get-off"), 0o755); err != nil {
		return "", -1, err
	}
	b, _ := json.Marshal(res)
	return dir, 0, os.WriteFile(filepath.Join(dir, "results.json"), b, 0o644)
}

func indexOf(args []string, s string) int {
	for i, a := range args {
		if a == s {
			return i
		}
	}
	return -1
}

func campaign(t *testing.T, dir string, budget time.Duration, f *fakeRuns, mode Mode) *State {
	t.Helper()
	st, err := Run(context.Background(), Options{Dir: dir, Budget: budget, Mode: mode, Versions: []string{"v2.14.9", "v2.15.3"},
		Seed: 3, RunTime: 20 * time.Second, Supported: func(string) bool { return true }, Exec: f.exec, Now: f.clock})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestCampaign: runs until the budget is spent, each class recorded once
// with the first run that found it and its rerun command, the weight of
// what found it halved, releases taken in turn, and hunt.md saying all.
func TestCampaign(t *testing.T) {
	dir := t.TempDir()
	f := &fakeRuns{now: time.Unix(0, 0)}
	st := campaign(t, dir, 10*time.Minute, f, Aimed)
	if len(st.Runs) != 20 || st.Spent != 10*time.Minute {
		t.Fatalf("%d runs, %s spent; want 20 in 10m", len(st.Runs), st.Spent)
	}
	classes := map[string]int{}
	for _, fd := range st.Found {
		classes[fd.Class]++
		r := st.Runs[fd.Run-1]
		if !containsClass(r.Classes, fd.Class) || fd.Rerun != r.Rerun || fd.Plan.Nemesis != r.Plan.Nemesis {
			t.Errorf("%s: found in run %d, whose record is %+v", fd.Class, fd.Run, r)
		}
		for _, earlier := range st.Runs[:fd.Run-1] {
			if containsClass(earlier.Classes, fd.Class) {
				t.Errorf("%s: recorded at run %d, but run %d found it first", fd.Class, fd.Run, earlier.N)
			}
		}
		for _, feat := range fd.Plan.Features {
			if st.Weights.of(feat) >= 1 {
				t.Errorf("%s: feature %s of the run that found it keeps weight %v", fd.Class, feat, st.Weights.of(feat))
			}
		}
	}
	for c, n := range classes {
		if n != 1 {
			t.Errorf("class %s recorded %d times", c, n)
		}
	}
	if st.Runs[0].Plan.Version != "v2.14.9" || st.Runs[1].Plan.Version != "v2.15.3" {
		t.Errorf("releases not taken in turn: %s, %s", st.Runs[0].Plan.Version, st.Runs[1].Plan.Version)
	}
	md, err := os.ReadFile(filepath.Join(dir, ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"20 runs in 10m0s", "## Anomaly classes found: " + itoa(len(st.Found)), "Rerun commands:", "| trigger | runs armed |"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("hunt.md lacks %q:\n%s", want, md)
		}
	}
}

// TestResume: an interrupted campaign given more budget goes on where it
// stopped, with the plans a single campaign would have drawn.
func TestResume(t *testing.T) {
	whole := campaign(t, t.TempDir(), 6*time.Minute, &fakeRuns{now: time.Unix(0, 0)}, Aimed)
	dir := t.TempDir()
	f := &fakeRuns{now: time.Unix(0, 0)}
	campaign(t, dir, 3*time.Minute, f, Aimed)
	resumed := campaign(t, dir, 6*time.Minute, f, Aimed)
	if len(resumed.Runs) != len(whole.Runs) {
		t.Fatalf("%d runs resumed, %d whole", len(resumed.Runs), len(whole.Runs))
	}
	for i := range whole.Runs {
		if resumed.Runs[i].Plan.Nemesis != whole.Runs[i].Plan.Nemesis || resumed.Runs[i].N != i+1 {
			t.Fatalf("run %d: %q resumed, %q whole", i+1, resumed.Runs[i].Plan.Nemesis, whole.Runs[i].Plan.Nemesis)
		}
	}
	if _, err := Run(context.Background(), Options{Dir: dir, Mode: Clock, Seed: 3, Budget: time.Hour}); err == nil ||
		!strings.Contains(err.Error(), "holds a campaign of aimed schedules") {
		t.Fatalf("resuming with another mode: %v", err)
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
