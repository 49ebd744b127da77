package checker

import (
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// checkInParts judges h as a workload's check of a long run does: the
// stored history cut by key into n parts (history.SplitDir), each part
// judged on its own with its share of final, and the results merged.
func checkInParts(t *testing.T, h history.History, final Final, n int, opts Options) []Result {
	t.Helper()
	dir := t.TempDir()
	rec, err := history.NewRecorder(filepath.Join(dir, "history.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range h.Ops {
		rec.Add(op)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if err := history.WriteStream(filepath.Join(dir, "stream.jsonl"), h.Stream, h.StreamComplete); err != nil {
		t.Fatal(err)
	}
	split, err := history.SplitDir(dir, t.TempDir(), n, nil)
	if err != nil {
		t.Fatal(err)
	}
	byPart := func(es []history.Entry, p int) []history.Entry {
		var out []history.Entry
		for _, e := range es {
			if split.PartOf(e.Key) == p {
				out = append(out, e)
			}
		}
		return out
	}
	var per [][]Result
	var done []Result
	for p, d := range split.Dirs {
		ph, err := history.Load(d)
		if err != nil {
			t.Fatal(err)
		}
		ph.Part = &history.Part{Index: split.Index[p], Acks: split.Acks}
		pf := Final{Entries: byPart(final.Entries, p), Complete: final.Complete, PerKey: final.PerKey,
			Observed: byPart(final.Observed, p), Conflicts: byPart(final.Conflicts, p)}
		po := PartOptions(opts, done)
		rs := Run(ph, append(All(po), NewRetention(po, pf), NewDeletes(po, pf)))
		per = append(per, rs)
		done = append(done, rs...)
	}
	checks := append(All(opts), NewRetention(opts, final), NewDeletes(opts, final))
	out := make([]Result, len(checks))
	for i, c := range checks {
		parts := make([]Result, len(per))
		for p := range per {
			parts[p] = per[p][i]
		}
		out[i] = Merge(c, opts, parts, split.Index)
	}
	return out
}

// sameJudgement fails unless merged says what whole says: verdict,
// summary, counts, stats, histograms, and examples that name the whole
// history's ops (all of them, when no more were found than are kept).
func sameJudgement(t *testing.T, whole, merged Result, ops []history.Op, maxExamples int) {
	t.Helper()
	if whole.Verdict != merged.Verdict || whole.Summary != merged.Summary || whole.Reason != merged.Reason {
		t.Errorf("%s: whole %s %q (%q); in parts %s %q (%q)", whole.Name, whole.Verdict, whole.Summary, whole.Reason,
			merged.Verdict, merged.Summary, merged.Reason)
	}
	for _, f := range []struct {
		what      string
		got, want any
	}{{"counts", merged.Counts, whole.Counts}, {"stats", merged.Stats, whole.Stats},
		{"histograms", merged.Histograms, whole.Histograms}, {"internal errors", len(merged.InternalErrors), len(whole.InternalErrors)}} {
		if !reflect.DeepEqual(f.got, f.want) {
			t.Errorf("%s: %s in parts %v, whole %v", whole.Name, f.what, f.got, f.want)
		}
	}
	kinds := func(r Result) map[string][]string {
		m := map[string][]string{}
		for _, a := range r.Anomalies {
			// Porcupine's longest prefix is not the same from run to run.
			d, _, _ := strings.Cut(a.Description, "porcupine's longest")
			m[a.Kind] = append(m[a.Kind], a.Key+": "+d)
		}
		return m
	}
	wk, mk := kinds(whole), kinds(merged)
	for kind, w := range wk {
		m := mk[kind]
		if len(m) != len(w) {
			t.Errorf("%s: %d %s examples in parts, %d whole", whole.Name, len(m), kind, len(w))
			continue
		}
		if len(w) < maxExamples {
			slices.Sort(w)
			slices.Sort(m)
			if !slices.Equal(w, m) {
				t.Errorf("%s: %s examples differ:\nwhole %q\nparts %q", whole.Name, kind, w, m)
			}
		}
	}
	for _, a := range merged.Anomalies {
		for _, ref := range a.Ops {
			if ref.Index < 0 || ref.Index >= len(ops) || !reflect.DeepEqual(ref.Op, ops[ref.Index]) {
				t.Errorf("%s: example %q names op %d, which is not the whole history's", whole.Name, a.Description, ref.Index)
			}
		}
	}
}

// Judging in parts gives the whole history's judgement: the differential
// test of Merge and history.SplitDir, on simulated histories with and
// without anomalies and on every fixture.
func TestPartsMatchWhole(t *testing.T) {
	type tc struct {
		name  string
		h     history.History
		final Final
	}
	var cases []tc
	for _, stale := range []float64{0, 0.01} {
		cfg := scaleCfg
		cfg.Ops, cfg.Keys, cfg.Clients, cfg.StaleRate = 6000, 40, 12, stale
		h, final := simulateScale(cfg)
		final.Observed, final.Complete = h.Stream, true
		cases = append(cases, tc{fmt.Sprintf("scale stale=%g", stale), h, final})
		if stale > 0 {
			lost := h
			lost.Stream = slices.Clone(h.Stream)
			for i := 100; i < len(lost.Stream); i += 400 {
				lost.Stream[i].Value += "-lost"
			}
			cases = append(cases, tc{"scale with lost writes", lost, final})
		}
	}
	for name := range fixtures {
		h := loadFixture(t, name)
		cases = append(cases, tc{"fixture " + name, h, Final{Entries: h.Stream, Complete: h.StreamComplete, Observed: h.Stream}})
	}
	for _, c := range cases {
		for _, n := range []int{1, 2, 5} {
			t.Run(fmt.Sprintf("%s/parts=%d", c.name, n), func(t *testing.T) {
				opts := Options{OutDir: t.TempDir(), Timeout: -1}
				whole := Run(c.h, append(All(opts), NewRetention(opts, c.final), NewDeletes(opts, c.final)))
				merged := checkInParts(t, c.h, c.final, n, opts)
				for i := range whole {
					sameJudgement(t, whole[i], merged[i], c.h.Ops, 10)
				}
			})
		}
	}
}

// A part that could not be judged leaves the whole undecided; a check
// that cannot be merged says so.
func TestMergeUndecided(t *testing.T) {
	good := NewSession(Options{}).Check(history.History{Ops: []history.Op{
		{Client: 1, Type: history.Get, Key: "k", Outcome: history.OK, Err: history.ErrNotFound, Invoke: 1, Complete: 2}}})
	bad := Result{Name: NameSession, Verdict: Unknown, Reason: "malformed history: history.jsonl:3: bad"}
	for _, c := range []struct {
		name  string
		c     Checker
		parts []Result
		want  Verdict
	}{
		{"both judged", NewSession(Options{}), []Result{good, good}, Valid},
		{"one malformed", NewSession(Options{}), []Result{good, bad}, Unknown},
		{"not mergeable", panicky{}, []Result{good}, Unknown},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := Merge(c.c, Options{}, c.parts, [][]int32{{0}, {1}})
			if r.Verdict != c.want || r.Summary == "" {
				t.Fatalf("verdict %s (%q), want %s", r.Verdict, r.Summary, c.want)
			}
		})
	}
}
