package run

import (
	"strings"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/record"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/kvupdate"
)

func TestRepeatsCellsAndSeeds(t *testing.T) {
	base := record.Spec{DirectGet: []bool{false}, ServerVersions: []string{"v2.15.3"}, Nemeses: []string{"none"}, Seed: 18, Runs: 3}
	cells := kvSpec(t, base, kvupdate.Options{}.WithDefaults()).Cells()
	if len(cells) != 3 {
		t.Fatalf("%d cells", len(cells))
	}
	seeds := map[uint64]bool{}
	for i, c := range cells {
		if c.Repeat != i+1 || c.Base != "direct-get-off" || c.Name != c.Base+"_run-"+string(rune('1'+i)) {
			t.Errorf("cell %d: %+v", i, c)
		}
		seeds[c.Seed] = true
	}
	if cells[0].Seed != 18 || len(seeds) != 3 {
		t.Errorf("seeds: run 1 keeps --seed, later runs differ: %v", seeds)
	}
	same := base
	same.SameSeed = true
	for _, c := range kvSpec(t, same, kvupdate.Options{}.WithDefaults()).Cells() {
		if c.Seed != 18 {
			t.Errorf("--same-seed: %d", c.Seed)
		}
	}
	if record.RepeatSeed(18, 2) != record.RepeatSeed(18, 2) || record.RepeatSeed(18, 2) == record.RepeatSeed(19, 2) {
		t.Error("RepeatSeed must be a function of seed and run")
	}
	once := kvSpec(t, record.Spec{DirectGet: []bool{false}, ServerVersions: []string{"v2.15.3"}, Nemeses: []string{"none"}, Seed: 18}, kvupdate.Options{}.WithDefaults()).Cells()
	if len(once) != 1 || once[0].Name != "direct-get-off" || once[0].Repeat != 0 {
		t.Errorf("no --runs: %+v", once)
	}
}

func TestSummarizeRepeatsAndRerun(t *testing.T) {
	cmd := "chaos run --direct-get=off --nemesis=kill --runs=5 --until-fail=true --server-version=v2.14.5..v2.15.3 --shard=2/3 --seed=18"
	mk := func(rep int, seed uint64, v record.Verdict) record.CellResult {
		return record.CellResult{Cell: record.Cell{Name: "x_run", Base: "x", Repeat: rep, Seed: seed, ServerVersion: "v2.14.9"}, Verdict: v, Dir: "d"}
	}
	reps := summarizeRepeats([]record.CellResult{mk(1, 18, record.Valid), mk(2, 77, record.Invalid), mk(3, 78, record.Invalid), mk(4, 79, record.Error)}, cmd, map[string]int{"x": 5})
	if len(reps) != 1 || reps[0].Runs != 4 || reps[0].Planned != 5 || reps[0].Failed != 2 || reps[0].Errors != 1 || reps[0].Rate != 0.5 {
		t.Fatalf("%+v", reps)
	}
	f := reps[0].FirstFailure
	if f == nil || f.Repeat != 2 || f.Seed != 77 {
		t.Fatalf("first failure %+v", f)
	}
	want := "chaos run --direct-get=off --nemesis=kill --server-version=v2.14.9 --seed=77"
	if f.Rerun != want {
		t.Errorf("rerun %q, want %q", f.Rerun, want)
	}
	var b strings.Builder
	PrintRepeats(&b, reps)
	if !strings.Contains(b.String(), "2 of 4 runs found an anomaly (50 %); 0 unknown, 1 harness errors; stopped after 4 of the 5 runs asked for") {
		t.Errorf("summary:\n%s", b.String())
	}
}

func TestBisectVersions(t *testing.T) {
	vs := []string{"a", "b", "c", "d", "e", "f"}
	rate := func(failing map[string]bool) func(string) record.VersionRate {
		return func(v string) record.VersionRate {
			r := record.VersionRate{ServerVersion: v, Runs: 3}
			if failing[v] {
				r.Failed = 1
			}
			return r
		}
	}
	never := func() bool { return false }
	for _, tc := range []struct {
		name    string
		failing map[string]bool
		first   string
		change  string
		decided bool
	}{
		{"stops at d", map[string]bool{"a": true, "b": true, "c": true}, "d", "stops", true},
		{"starts at b", map[string]bool{"b": true, "c": true, "d": true, "e": true, "f": true}, "b", "starts", true},
		{"stops at the last", map[string]bool{"a": true, "b": true, "c": true, "d": true, "e": true}, "f", "stops", true},
		{"both ends fail", map[string]bool{"a": true, "f": true}, "", "", false},
		{"never fails", map[string]bool{}, "", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := bisectVersions(vs, rate(tc.failing), never)
			if b.Decided != tc.decided || b.FirstChange != tc.first || b.Change != tc.change {
				t.Errorf("%+v", b)
			}
			if len(b.Probes) > 2+3 { // log2(6) probes after the ends
				t.Errorf("%d probes", len(b.Probes))
			}
			if tc.change == "stops" && !strings.Contains(b.Detail, "does not prove it gone") {
				t.Errorf("detail %q", b.Detail)
			}
		})
	}
	if b := bisectVersions(vs, rate(nil), func() bool { return true }); b.Decided || b.Detail != "interrupted" {
		t.Errorf("interrupted: %+v", b)
	}
}
