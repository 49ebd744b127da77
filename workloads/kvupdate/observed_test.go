package kvupdate

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/checker"

	"github.com/jetstream-chaos/jetstream-chaos/history"
)

func TestMergeStreams(t *testing.T) {
	e := func(seq uint64, v string) history.Entry { return history.Entry{Seq: seq, Key: "k", Value: v} }
	cases := []struct {
		name            string
		final, observed []history.Entry
		last            uint64
		want            []string
		complete        bool
	}{
		{"observed fills what history 1 deleted", []history.Entry{e(3, "c")}, []history.Entry{e(1, "a"), e(2, "b"), e(3, "c")}, 3, []string{"a", "b", "c"}, true},
		{"a sequence nobody saw", []history.Entry{e(3, "c")}, []history.Entry{e(1, "a"), e(3, "c")}, 3, []string{"a", "c"}, false},
		{"the read-back wins where both hold a sequence", []history.Entry{e(2, "x")}, []history.Entry{e(1, "a"), e(2, "b")}, 2, []string{"a", "x"}, true},
		{"observers stopped short of the last", nil, []history.Entry{e(1, "a")}, 2, []string{"a"}, false},
		{"read-back past what the observers were drained to", []history.Entry{e(3, "c")}, []history.Entry{e(1, "a"), e(2, "b")}, 2, []string{"a", "b", "c"}, true},
		{"empty", nil, nil, 0, nil, true},
	}
	for _, c := range cases {
		got, complete := mergeStreams(c.final, c.observed, c.last)
		var vals []string
		for _, x := range got {
			vals = append(vals, x.Value)
		}
		if complete != c.complete || len(vals) != len(c.want) {
			t.Errorf("%s: %v complete=%v, want %v complete=%v", c.name, vals, complete, c.want, c.complete)
			continue
		}
		for i := range vals {
			if vals[i] != c.want[i] {
				t.Errorf("%s: %v, want %v", c.name, vals, c.want)
				break
			}
		}
	}
}

func TestObservedFileRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), ObservedFile)
	entries := []history.Entry{{Seq: 1, Key: "k0", Value: "c0-1"}, {Seq: 2, Key: "k0", Value: "c0-2", Operation: "del"}}
	head := ObservedHead{LastSeq: 3, Count: 2, Missing: 1, Observers: []ObserverStat{{Via: "n1 republish", Received: 2}},
		Conflicts: []history.Entry{{Seq: 2, Key: "k1", Value: "c1-1"}}}
	if err := WriteObserved(path, head, entries); err != nil {
		t.Fatal(err)
	}
	got, gotHead, err := ReadObserved(path)
	if err != nil || len(got) != 2 || got[1] != entries[1] || gotHead.Missing != 1 || len(gotHead.Conflicts) != 1 {
		t.Fatalf("read back %+v %+v %v", got, gotHead, err)
	}
	// A file cut short cannot vouch for its count.
	b, _ := os.ReadFile(path)
	if err := os.WriteFile(path, b[:len(b)-40], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadObserved(path); err == nil {
		t.Fatal("a truncated observed.jsonl was read without error")
	}
}

// malformedObserved lists every fixture in testdata/malformed: the line
// its error must name and a phrase it must contain. The observers write
// their entries valid and in increasing sequence order, so one out of
// order, repeated or invalid is malformed input, not sorted or skipped.
var malformedObserved = map[string]struct {
	line int
	says string
}{
	"unsorted":          {3, "sequence 1 after 3: the observers' entries are written in increasing sequence order"},
	"repeated":          {4, "sequence 1 after 3"},
	"repeated_adjacent": {4, "sequence 2 appears twice"},
	"missing_key":       {3, "stream entry 2 without a key"},
	"unknown_op":        {4, `unknown operation "erase"`},
}

// Every malformed observed.jsonl gives one line naming file:line and what
// is wrong, read alone or as a cell's, whole and in parts (audit cell
// kv/rb3_observed_unsorted_changed).
func TestObservedMalformed(t *testing.T) {
	files, _ := filepath.Glob("testdata/malformed/*.jsonl")
	if len(files) != len(malformedObserved) {
		t.Errorf("%d fixtures on disk, %d in the table", len(files), len(malformedObserved))
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		want, ok := malformedObserved[name]
		if !ok {
			t.Errorf("%s is not in the table", f)
			continue
		}
		t.Run(name, func(t *testing.T) {
			_, _, err := ReadObserved(f)
			var le *history.LineError
			if err == nil || !errors.As(err, &le) || le.Line != want.line {
				t.Fatalf("ReadObserved: error %v, want a *history.LineError for line %d", err, want.line)
			}
			wantLineError(t, err, fmt.Sprintf("%s:%d: ", f, want.line), want.says)
			dir := copyCell(t, "clean")
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, ObservedFile)
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			for _, partOps := range []int{-1, 4} {
				_, err := CheckDir(dir, checker.Options{PartOps: partOps, MaxVisualizations: -1})
				wantLineError(t, err, fmt.Sprintf("%s:%d: ", path, want.line), want.says)
			}
		})
	}
}

func wantLineError(t *testing.T, err error, prefix, says string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one starting %q", prefix)
	}
	if msg := err.Error(); !strings.HasPrefix(msg, prefix) || !strings.Contains(msg, says) || strings.Contains(msg, "\n") {
		t.Errorf("error %q: want one line starting %q and saying %q", msg, prefix, says)
	}
}
