package kvupdate

import (
	"os"
	"path/filepath"
	"testing"

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
