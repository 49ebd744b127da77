package kvupdate

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/checker"

	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// The stream the checkers judge: the read-back, with what the observers
// saw filling what it no longer holds; complete when every sequence up to
// the stream's last is in one or the other and that last is known.
func TestJudgedStream(t *testing.T) {
	e := func(seq uint64, v string) history.Entry { return history.Entry{Seq: seq, Key: "k", Value: v} }
	head := func(last uint64) *ObservedHead { return &ObservedHead{LastSeq: last} }
	cases := []struct {
		name            string
		history         History
		final, observed []history.Entry
		readComplete    bool
		head            *ObservedHead
		want            []string
		complete        bool
		last            uint64
	}{
		{"observed fills what history 1 deleted", 1, []history.Entry{e(3, "c")}, []history.Entry{e(1, "a"), e(2, "b"), e(3, "c")}, true, head(3),
			[]string{"a", "b", "c"}, true, 3},
		{"a sequence nobody saw", 1, []history.Entry{e(3, "c")}, []history.Entry{e(1, "a"), e(3, "c")}, true, head(3), []string{"a", "c"}, false, 3},
		{"the read-back wins where both hold a sequence", 1, []history.Entry{e(2, "x")}, []history.Entry{e(1, "a"), e(2, "b")}, true, head(2),
			[]string{"a", "x"}, true, 2},
		{"observers stopped short of the last", 1, nil, []history.Entry{e(1, "a")}, false, head(2), []string{"a"}, false, 2},
		{"read-back past what the observers were drained to", 1, []history.Entry{e(3, "c")}, []history.Entry{e(1, "a"), e(2, "b")}, true, head(2),
			[]string{"a", "b", "c"}, true, 3},
		{"empty stream", 1, nil, nil, true, head(0), nil, true, 0},
		// The read-back failed before the stream's last sequence was
		// learnt, so the observers were drained to 0: nothing is known
		// (kv/i1min_readback_failed), not an empty stream.
		{"read-back failed, last sequence unknown", 1, nil, nil, false, head(0), nil, false, 0},
		{"read-back failed, the observers saw every sequence", 1, nil, []history.Entry{e(1, "a"), e(2, "b")}, false, head(2), []string{"a", "b"}, true, 2},
		{"observers never drained", 1, []history.Entry{e(1, "a"), e(2, "b")}, nil, true, nil, []string{"a", "b"}, false, 2},
		{"observers never drained, read-back failed", 1, nil, nil, false, nil, nil, false, 0},
		{"observers never drained, read-back stopped early", 1, []history.Entry{e(1, "a"), e(2, "b")}, nil, false, nil, []string{"a", "b"}, false, 0},
		{"keep-all: the read-back alone", KeepAll, []history.Entry{e(1, "a")}, []history.Entry{e(1, "a"), e(2, "b")}, false, head(2),
			[]string{"a"}, false, 2},
		{"keep-all, read in full", KeepAll, []history.Entry{e(1, "a"), e(2, "b")}, nil, true, head(2), []string{"a", "b"}, true, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := Bucket{History: c.history}
			h := history.History{Stream: c.final, StreamComplete: c.readComplete}
			var obs *observedFile
			if c.head != nil {
				obs = &observedFile{entries: c.observed, head: *c.head}
			}
			b.checks(&h, obs, nil, checker.Options{})
			var vals []string
			for _, x := range h.Stream {
				vals = append(vals, x.Value)
			}
			if h.StreamComplete != c.complete || h.StreamLast != c.last || !slices.Equal(vals, c.want) {
				t.Errorf("%v complete=%v last=%d, want %v complete=%v last=%d", vals, h.StreamComplete, h.StreamLast, c.want, c.complete, c.last)
			}
		})
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
