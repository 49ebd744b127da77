package kvcheck

import (
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// crossed counts the histories checkInParts judged whole.
var crossed int

// checkInParts judges h as a workload's check of a long run does: the
// stored history cut by key into n parts (history.SplitDir), each part
// judged on its own with its share of final, and the results merged.
func checkInParts(t *testing.T, h history.History, final Final, n int, opts checker.Options) []checker.Result {
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
	var seqs history.SeqSet
	split, err := history.SplitDir(dir, t.TempDir(), n, func(e history.Entry) { seqs.Add(e.Seq) })
	if err != nil {
		t.Fatal(err)
	}
	if split.Crossed() != "" {
		// A sequence read across parts: the workload judges such a history
		// whole (kvupdate's checkInParts), and so does this.
		t.Logf("judged whole: %s", split.Crossed())
		crossed++
		return Run(h, append(All(opts), NewRetention(opts, final), NewDeletes(opts, final)))
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
	reached := final.Reached // the whole read-back's, as kvupdate's judge gives it
	for _, e := range final.Entries {
		reached = max(reached, e.Seq)
	}
	var per [][]checker.Result
	var done []checker.Result
	for p, d := range split.Dirs {
		ph, err := history.Load(d)
		if err != nil {
			t.Fatal(err)
		}
		ph.Part = &history.Part{Index: split.Index[p], Acks: split.Acks, Seqs: &seqs}
		ph.StreamLast = h.StreamLast // what the whole stream tells, as kvupdate's judge gives it
		pf := Final{Entries: byPart(final.Entries, p), Complete: final.Complete, Torn: final.Torn, Reached: reached, PerKey: final.PerKey,
			Observed: byPart(final.Observed, p), Conflicts: byPart(final.Conflicts, p)}
		po := PartOptions(opts, done)
		rs := Run(ph, append(All(po), NewRetention(po, pf), NewDeletes(po, pf)))
		per = append(per, rs)
		done = append(done, rs...)
	}
	checks := append(All(opts), NewRetention(opts, final), NewDeletes(opts, final))
	out := make([]checker.Result, len(checks))
	for i, c := range checks {
		parts := make([]checker.Result, len(per))
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
func sameJudgement(t *testing.T, whole, merged checker.Result, ops []history.Op, maxExamples int) {
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
	kinds := func(r checker.Result) map[string][]string {
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
	deletes, _ := filepath.Glob(filepath.Join("testdata", "deletes", "*.final.jsonl"))
	for _, f := range deletes {
		name := strings.TrimSuffix(filepath.Base(f), ".final.jsonl")
		h, final := loadDeleteFixture(t, name)
		cases = append(cases, tc{"deletes fixture " + name, h, final})
	}
	// Sequences shared by keys, the review's cases: a part must know the
	// whole stream's sequences, or be judged whole.
	put := func(c int, k, v string, rev uint64, at int64) history.Op {
		return history.Op{Client: c, Type: history.Put, Key: k, Value: v, Rev: rev, Outcome: history.OK, Invoke: at, Complete: at + 1}
	}
	for _, x := range []struct {
		name     string
		ops      []history.Op
		stream   []history.Entry
		complete bool
	}{
		{"create over a live key, stream incomplete", []history.Op{put(0, "a", "a1", 1, 0), put(1, "b", "b1", 2, 10),
			{Client: 0, Type: history.Create, Key: "a", Value: "a2", Rev: 3, Outcome: history.OK, Invoke: 20, Complete: 21}},
			[]history.Entry{{Seq: 1, Key: "a", Value: "a1"}, {Seq: 2, Key: "b", Value: "b1"}, {Seq: 3, Key: "a", Value: "a2"}}, false},
		{"revision held by another key, stream incomplete", []history.Op{put(0, "a", "a1", 1, 0), put(1, "b", "b1", 2, 10), put(0, "a", "a2", 2, 20),
			{Client: 0, Type: history.Get, Key: "a", Value: "a2", Rev: 2, Outcome: history.OK, Invoke: 30, Complete: 31}},
			[]history.Entry{{Seq: 1, Key: "a", Value: "a1"}, {Seq: 2, Key: "b", Value: "b1"}}, false},
	} {
		h := history.History{Ops: x.ops, Stream: x.stream, StreamComplete: x.complete}
		cases = append(cases, tc{x.name, h, Final{Entries: h.Stream, Complete: h.StreamComplete, Observed: h.Stream}})
	}
	// Sequences nobody saw, with the stream's last known: the writes and
	// reads they cost, named lowest first, are the whole's.
	unseen := cases[0]
	unseen.name = "scale with sequences nobody saw"
	unseen.h.Stream, unseen.h.StreamComplete = nil, false
	for i, e := range cases[0].h.Stream {
		unseen.h.StreamLast = max(unseen.h.StreamLast, e.Seq)
		if i%97 != 5 {
			unseen.h.Stream = append(unseen.h.Stream, e)
		}
	}
	cases = append(cases, unseen)
	spread := history.History{StreamLast: 7} // writes of six keys nobody saw or read: named across parts
	for i, k := range []string{"a", "b", "c", "d", "e", "f", "g"} {
		spread.Ops = append(spread.Ops, put(i, k, k+"1", uint64(i+1), int64(10*i)))
	}
	spread.Stream = []history.Entry{{Seq: 7, Key: "g", Value: "g1"}}
	cases = append(cases, tc{"writes nobody saw, across keys", spread, Final{Entries: spread.Stream, Complete: true, PerKey: 1, Observed: spread.Stream}})
	for _, name := range []string{"verified", "unverified_write", "cas_through_vouched", "many_undecided",
		"settled_marker", "settled_reads_disagree", "settled_seq_acked", "settled_two_at_one_seq", "create_over_settled_value", "seq_reused"} {
		h := loadFixtureFrom(t, filepath.Join("testdata", "unseen"), name)
		h.StreamLast = 8
		cases = append(cases, tc{"unseen " + name, h, Final{Entries: h.Stream, Complete: h.StreamComplete, Observed: h.Stream}})
	}
	// A read-back cut short: each part's read-back check says so.
	cut := cases[0]
	cut.name, cut.final.Complete, cut.final.Torn = "read-back cut short", false, 7
	cases = append(cases, cut)
	for _, c := range cases {
		for _, n := range []int{1, 2, 5} {
			t.Run(fmt.Sprintf("%s/parts=%d", c.name, n), func(t *testing.T) {
				opts := checker.Options{OutDir: t.TempDir(), Timeout: -1}
				whole := Run(c.h, append(All(opts), NewRetention(opts, c.final), NewDeletes(opts, c.final)))
				merged := checkInParts(t, c.h, c.final, n, opts)
				for i := range whole {
					sameJudgement(t, whole[i], merged[i], c.h.Ops, 10)
				}
			})
		}
	}
	if crossed == 0 {
		t.Error("no history was found to share a sequence across parts: the cases above should")
	}
}

// A part that could not be judged leaves the whole undecided; a check
// that cannot be merged says so.
func TestMergeUndecided(t *testing.T) {
	good := NewSession(checker.Options{}).Check(history.History{Ops: []history.Op{
		{Client: 1, Type: history.Get, Key: "k", Outcome: history.OK, Err: history.ErrNotFound, Invoke: 1, Complete: 2}}})
	bad := checker.Result{Name: NameSession, Verdict: checker.Unknown, Reason: "malformed history: history.jsonl:3: bad"}
	for _, c := range []struct {
		name  string
		c     Checker
		parts []checker.Result
		want  checker.Verdict
	}{
		{"both judged", NewSession(checker.Options{}), []checker.Result{good, good}, checker.Valid},
		{"one malformed", NewSession(checker.Options{}), []checker.Result{good, bad}, checker.Unknown},
		{"not mergeable", panicky{}, []checker.Result{good}, checker.Unknown},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := Merge(c.c, checker.Options{}, c.parts, [][]int32{{0}, {1}})
			if r.Verdict != c.want || r.Summary == "" {
				t.Fatalf("verdict %s (%q), want %s", r.Verdict, r.Summary, c.want)
			}
		})
	}
}
