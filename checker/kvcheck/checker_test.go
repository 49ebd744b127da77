package kvcheck

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// Fixtures live in testdata as pairs:
//
//	NAME.jsonl         the ops, in history.jsonl format (one history.Op a line)
//	NAME.stream.jsonl  the stream, in stream.jsonl format (history.WriteStream:
//	                   a {"complete":bool,"count":n} line, then one Entry a line)
//
// A missing stream file means no stream was read (StreamComplete false).
func loadFixture(t testing.TB, name string) history.History {
	t.Helper()
	return loadFixtureFrom(t, "testdata", name)
}

// loadFixtureFrom is loadFixture from another folder.
func loadFixtureFrom(t testing.TB, dir, name string) history.History {
	t.Helper()
	ops, err := history.ReadOps(filepath.Join(dir, name+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	h := history.History{Ops: ops}
	entries, complete, err := history.ReadStream(filepath.Join(dir, name+".stream.jsonl"))
	switch {
	case err == nil:
		h.Stream, h.StreamComplete = entries, complete
	case !os.IsNotExist(err):
		t.Fatal(err)
	}
	return h
}

const (
	cSession   = "session"
	cStale     = "stale-read"
	cAttrib    = "wrong-last-seq"
	cIntegrity = "stream-integrity"
	cLin       = "linearizability"
)

type fixtureWant struct {
	// verdicts of every checker; a checker left out must be valid.
	verdicts map[string]checker.Verdict
	// counts that must match exactly, per checker.
	counts map[string]map[string]int
	stats  map[string]map[string]float64
}

var fixtures = map[string]fixtureWant{
	"clean": {
		counts: map[string]map[string]int{
			cSession:   {"gets": 7, "ryw_violations": 0, "monotonic_violations": 0},
			cStale:     {"gets": 7, "stale_reads": 0},
			cAttrib:    {"rejections": 1, "concurrent_write": 1, "concurrent_write_10071": 1, "stale_read": 0, "spurious": 0, "unattributed": 0},
			cIntegrity: {"acked_writes": 4, "stream_entries": 4, "gets_checked": 5, "lost_write": 0, "unexpected_value": 0},
			cLin:       {"keys": 2, "keys_illegal": 0, "ops_checked": 12, "dropped_failed": 0},
		},
	},
	"stale_read": {
		verdicts: map[string]checker.Verdict{cStale: checker.Invalid, cLin: checker.Invalid},
		counts: map[string]map[string]int{
			cSession: {"gets": 4, "ryw_violations": 0, "monotonic_violations": 0},
			cStale:   {"gets": 4, "stale_reads": 2, "keys_with_stale_reads": 1},
			cLin:     {"keys_illegal": 1},
		},
		stats: map[string]map[string]float64{
			cStale: {"stale_fraction": 0.5, "staleness_ms_p50": 2, "staleness_ms_max": 6, "staleness_revs_p50": 1, "staleness_revs_max": 2},
		},
	},
	"ryw_seed": {
		verdicts: map[string]checker.Verdict{cSession: checker.Invalid, cStale: checker.Invalid, cAttrib: checker.Invalid, cLin: checker.Invalid},
		counts: map[string]map[string]int{
			cSession: {"ryw_violations": 1, "monotonic_violations": 0, "violating_gets": 1},
			cStale:   {"stale_reads": 1},
			cAttrib:  {"rejections": 1, "stale_read": 1, "stale_read_10071": 1, "concurrent_write": 0, "spurious": 0},
		},
		stats: map[string]map[string]float64{cStale: {"staleness_ms_max": 1, "staleness_revs_max": 1}},
	},
	"monotonic": {
		verdicts: map[string]checker.Verdict{cSession: checker.Invalid, cLin: checker.Invalid},
		counts: map[string]map[string]int{
			cSession: {"ryw_violations": 0, "monotonic_violations": 1},
			cStale:   {"gets": 3, "stale_reads": 0},
		},
	},
	"concurrent_info": {
		counts: map[string]map[string]int{
			cAttrib:    {"rejections": 1, "concurrent_write": 1, "concurrent_write_10071": 1},
			cIntegrity: {"info_applied": 1, "info_not_applied": 0},
			cLin:       {"info_applied": 1, "info_not_applied": 0, "info_unresolved": 0},
		},
	},
	"info_not_applied": {
		counts: map[string]map[string]int{
			cIntegrity: {"info_applied": 0, "info_not_applied": 1},
			cLin:       {"info_applied": 0, "info_not_applied": 1, "ops_checked": 5},
		},
	},
	"spurious_10164": {
		verdicts: map[string]checker.Verdict{cAttrib: checker.Valid},
		counts: map[string]map[string]int{
			cAttrib: {"rejections": 1, "spurious": 1, "spurious_10164": 1, "stale_read": 0, "concurrent_write": 0, "errseq_equals_expected": 0},
			cLin:    {"dropped_failed": 1},
		},
	},
	"spurious_10071": {
		verdicts: map[string]checker.Verdict{cAttrib: checker.Invalid, cLin: checker.Invalid},
		counts: map[string]map[string]int{
			cAttrib: {"rejections": 1, "spurious": 1, "spurious_10071": 1, "errseq_equals_expected": 1},
			cLin:    {"dropped_failed": 0, "keys_illegal": 1},
		},
	},
	"lost_write": {
		verdicts: map[string]checker.Verdict{cIntegrity: checker.Invalid},
		counts:   map[string]map[string]int{cIntegrity: {"lost_write": 1, "rev_mismatch": 0, "unexpected_value": 0}},
	},
	"unexpected_value": {
		verdicts: map[string]checker.Verdict{cIntegrity: checker.Invalid},
		counts:   map[string]map[string]int{cIntegrity: {"unexpected_value": 1, "lost_write": 0, "failed_write_applied": 0}},
	},
	"failed_applied": {
		verdicts: map[string]checker.Verdict{cIntegrity: checker.Invalid},
		counts: map[string]map[string]int{
			cIntegrity: {"failed_write_applied": 1, "unexpected_value": 0},
			cLin:       {"dropped_failed": 1},
		},
	},
	"double_cas": {
		verdicts: map[string]checker.Verdict{cIntegrity: checker.Invalid, cLin: checker.Invalid},
		counts: map[string]map[string]int{
			cIntegrity: {"cas_violation": 1, "cas_checked": 3, "lost_write": 0, "rev_mismatch": 0},
			cLin:       {"keys_illegal": 1},
		},
	},
	// The timed-out put is in the stream at seq 1, below seq 2, acknowledged
	// at 2ms on another key: it took effect by then, so the get at 3ms
	// cannot miss it.
	"applied_timeout": {
		verdicts: map[string]checker.Verdict{cLin: checker.Invalid},
		counts: map[string]map[string]int{
			cIntegrity: {"info_applied": 1},
			cLin:       {"info_applied": 1, "keys_illegal": 1},
		},
	},
	"future_read": {
		verdicts: map[string]checker.Verdict{cLin: checker.Invalid},
		counts:   map[string]map[string]int{cLin: {"keys_illegal": 1, "pieces_illegal": 1}},
	},
	// The minimal tie: the update that wrote revision 2 was invoked
	// at the instant the rejection completed, so they are concurrent.
	"tie_10071": {
		counts: map[string]map[string]int{
			cAttrib: {"rejections": 1, "concurrent_write": 1, "concurrent_write_10071": 1, "spurious": 0},
			cLin:    {"keys_illegal": 0, "ops_checked": 4},
		},
	},
	// The read of c0-3 at revision 2 and its ack verify each other; the
	// verdict is unknown because the stream's last sequence is not known.
	"incomplete_stream": {
		verdicts: map[string]checker.Verdict{cIntegrity: checker.Unknown},
		counts: map[string]map[string]int{
			cIntegrity: {"unverifiable_writes": 0, "unverifiable_reads": 0, "history_verified_writes": 1, "history_verified_reads": 1,
				"info_unresolved": 1, "lost_write": 0},
			cLin: {"info_unresolved": 1},
		},
	},
}

func TestFixtures(t *testing.T) {
	for name, want := range fixtures {
		t.Run(name, func(t *testing.T) {
			h := loadFixture(t, name)
			results := Run(h, All(checker.Options{OutDir: t.TempDir()}))
			if len(results) != 5 {
				t.Fatalf("got %d results", len(results))
			}
			for _, r := range results {
				wv := want.verdicts[r.Name]
				if wv == "" {
					wv = checker.Valid
				}
				if r.Verdict != wv {
					t.Errorf("%s: verdict %s, want %s (%s; reason %q)", r.Name, r.Verdict, wv, r.Summary, r.Reason)
				}
				for k, v := range want.counts[r.Name] {
					if got, ok := r.Counts[k]; !ok || got != v {
						t.Errorf("%s: count %s = %d (present %v), want %d", r.Name, k, got, ok, v)
					}
				}
				for k, v := range want.stats[r.Name] {
					if got := r.Stats[k]; got != v {
						t.Errorf("%s: stat %s = %g, want %g", r.Name, k, got, v)
					}
				}
				if r.Summary == "" {
					t.Errorf("%s: no summary", r.Name)
				}
				if r.Verdict == checker.Invalid && len(r.Anomalies) == 0 {
					t.Errorf("%s: invalid without an example", r.Name)
				}
				if r.Verdict == checker.Unknown && r.Reason == "" {
					t.Errorf("%s: unknown without a reason", r.Name)
				}
				for _, a := range r.Anomalies {
					if a.Description == "" || a.Kind == "" {
						t.Errorf("%s: anomaly without kind or description: %+v", r.Name, a)
					}
				}
				if testing.Verbose() {
					t.Logf("%-17s %-8s %s", r.Name, r.Verdict, r.Summary)
					for _, a := range r.Anomalies {
						t.Logf("    %s: %s", a.Kind, a.Description)
					}
				}
			}
			if _, err := json.Marshal(results); err != nil {
				t.Errorf("results do not marshal: %v", err)
			}
		})
	}
}

func TestFixturesHaveFiles(t *testing.T) {
	for name := range fixtures {
		if _, err := os.Stat(filepath.Join("testdata", name+".stream.jsonl")); err != nil {
			t.Errorf("fixture %s: %v", name, err)
		}
	}
	matches, _ := filepath.Glob("testdata/*.jsonl")
	for _, m := range matches {
		name := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(m), ".jsonl"), ".stream")
		if _, ok := fixtures[name]; !ok {
			t.Errorf("%s is not in the fixture table", m)
		}
	}
}

func TestVisualizationWritten(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "porcupine")
	r := NewLinearizability(checker.Options{OutDir: dir}).Check(loadFixture(t, "future_read"))
	if r.Verdict != checker.Invalid || len(r.Files) != 1 {
		t.Fatalf("verdict %s, files %v", r.Verdict, r.Files)
	}
	b, err := os.ReadFile(r.Files[0])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "<html") || !strings.Contains(string(b), "c0-2") {
		t.Errorf("%s does not look like porcupine's visualization", r.Files[0])
	}
	if len(r.Anomalies) != 1 || r.Anomalies[0].File != r.Files[0] || len(r.Anomalies[0].Ops) == 0 {
		t.Errorf("anomaly: %+v", r.Anomalies)
	}
	// No OutDir, no files.
	if r := NewLinearizability(checker.Options{}).Check(loadFixture(t, "future_read")); len(r.Files) != 0 {
		t.Errorf("files written without OutDir: %v", r.Files)
	}
}

func TestLinearizabilityTimeoutIsUnknown(t *testing.T) {
	defer noDirect()()
	r := NewLinearizability(checker.Options{Timeout: time.Nanosecond}).Check(loadFixture(t, "clean"))
	if r.Verdict != checker.Unknown || r.Reason == "" || r.Counts["keys_unknown"] != 2 {
		t.Errorf("verdict %s, reason %q, counts %v", r.Verdict, r.Reason, r.Counts)
	}
}

// The timeout bounds the search: pieces the revision order decides need
// none, so a clean history is still valid when no time is left.
func TestDirectPiecesNeedNoTime(t *testing.T) {
	r := NewLinearizability(checker.Options{Timeout: time.Nanosecond}).Check(loadFixture(t, "clean"))
	if r.Verdict != checker.Valid || r.Counts["pieces_direct"] != r.Counts["pieces"] || r.Counts["pieces"] == 0 {
		t.Errorf("verdict %s, reason %q, counts %v", r.Verdict, r.Reason, r.Counts)
	}
}

// Two updates expecting one revision both succeed. Linearizability sees it
// only if porcupine finishes; stream-integrity sees it in linear time.
func TestDoubleCASCaughtWhenPorcupineTimesOut(t *testing.T) {
	h := loadFixture(t, "double_cas")
	results := Run(h, All(checker.Options{Timeout: time.Nanosecond}))
	got := map[string]checker.Result{}
	for _, r := range results {
		got[r.Name] = r
	}
	if r := got[cLin]; r.Verdict != checker.Unknown {
		t.Fatalf("linearizability %s (%s): the timeout did not bite, so this test shows nothing", r.Verdict, r.Summary)
	}
	if r := got[cIntegrity]; r.Verdict != checker.Invalid || r.Counts["cas_violation"] != 1 || len(r.Anomalies) != 1 ||
		!strings.Contains(r.Anomalies[0].Description, "two writes took effect on one expected revision") {
		t.Errorf("stream-integrity %s %v: %+v", r.Verdict, r.Counts, r.Anomalies)
	}
	if w := checker.Worst(results); w != checker.Invalid {
		t.Errorf("worst verdict %s", w)
	}
}

type panicky struct{}

func (panicky) Name() string                         { return "panicky" }
func (panicky) Check(history.History) checker.Result { panic("boom") }

func TestRunRecoversPanics(t *testing.T) {
	r := Run(history.History{}, []Checker{panicky{}})
	if len(r) != 1 || r[0].Verdict != checker.Unknown || !strings.Contains(r[0].Reason, "boom") {
		t.Errorf("%+v", r)
	}
}

func TestEmptyHistoryIsNeverValid(t *testing.T) {
	for _, r := range Run(history.History{StreamComplete: true}, All(checker.Options{})) {
		if r.Verdict == checker.Valid && r.Name != cAttrib && r.Name != cIntegrity {
			t.Errorf("%s: valid on an empty history", r.Name)
		}
	}
}
