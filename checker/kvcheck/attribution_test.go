package kvcheck

import (
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// One case per branch of wrong-last-seq not already pinned by a fixture:
// each names the class its one rejection must get.
func TestAttributionBranches(t *testing.T) {
	// Client 0 writes a@1; client 1 reads it and updates expecting 1, which
	// is rejected with 10071.
	const put = `{"client":0,"type":"put","key":"k","value":"a","rev":1,"outcome":"ok","invoke":0,"complete":1000}`
	const get = `{"client":1,"type":"get","key":"k","value":"a","rev":1,"outcome":"ok","invoke":2000,"complete":3000}`
	const rejected = `{"client":1,"type":"update","key":"k","value":"c","expected_rev":1,"outcome":"fail","err":"wrong_last_seq","err_code":10071,"err_seq":2,"invoke":4000,"complete":5000}`
	a := history.Entry{Seq: 1, Key: "k", Value: "a"}
	cases := []struct {
		name     string
		ops      []string
		stream   []history.Entry
		complete bool
		class    string
		verdict  checker.Verdict
	}{
		// The rejected update's own value is in the stream (a deposed leader
		// rejected it, the new one stored it): that is no concurrent write.
		{"own value in the stream", []string{put, get, rejected},
			[]history.Entry{a, {Seq: 2, Key: "k", Value: "c"}}, true, clsSpurious, checker.Invalid},
		{"own value in the stream, and a concurrent write", []string{put, get, rejected,
			`{"client":2,"type":"update","key":"k","value":"b","expected_rev":1,"outcome":"info","err":"timeout","invoke":4500,"complete":9000}`},
			[]history.Entry{a, {Seq: 2, Key: "k", Value: "c"}, {Seq: 3, Key: "k", Value: "b"}}, true, clsConcurrent, checker.Valid},
		{"a value nobody wrote", []string{put, get, rejected},
			[]history.Entry{a, {Seq: 2, Key: "k", Value: "zz"}}, true, clsConcurrent, checker.Valid},
		{"an unsettled write", []string{put, get, rejected,
			`{"client":2,"type":"put","key":"k","value":"b","outcome":"info","err":"timeout","invoke":4500,"complete":9000}`},
			[]history.Entry{a}, false, clsConcurrent, checker.Valid},
		{"an unsettled write invoked after", []string{put, get, rejected,
			`{"client":2,"type":"put","key":"k","value":"b","outcome":"info","err":"timeout","invoke":5001,"complete":9000}`},
			[]history.Entry{a}, false, clsSpurious, checker.Invalid},
		{"no earlier get", []string{put, rejected}, []history.Entry{a}, true, clsUnknown, checker.Unknown},
		{"the get returned another revision", []string{put,
			`{"client":1,"type":"get","key":"k","outcome":"ok","err":"not_found","invoke":2000,"complete":3000}`, rejected},
			[]history.Entry{a}, true, clsUnknown, checker.Unknown},
		{"a get of another key", []string{put,
			`{"client":1,"type":"get","key":"j","value":"a","rev":1,"outcome":"ok","invoke":2000,"complete":3000}`, rejected},
			[]history.Entry{a}, true, clsUnknown, checker.Unknown},
	}
	for _, c := range cases {
		var lines string
		for _, l := range c.ops {
			lines += l + "\n"
		}
		h := history.History{Ops: parseOps(t, lines), Stream: c.stream, StreamComplete: c.complete}
		r := NewAttribution(checker.Options{}).Check(h)
		if r.Counts["rejections"] != 1 || r.Counts[c.class] != 1 || r.Verdict != c.verdict {
			t.Errorf("%s: %s %v, want one %s and %s: %s", c.name, r.Verdict, r.Counts, c.class, c.verdict, r.Summary)
		}
		if len(r.Anomalies) != 1 || r.Anomalies[0].Kind != c.class {
			t.Errorf("%s: examples %+v", c.name, r.Anomalies)
		}
		if c.verdict == checker.Unknown && r.Reason == "" {
			t.Errorf("%s: unknown without a reason", c.name)
		}
	}
}
