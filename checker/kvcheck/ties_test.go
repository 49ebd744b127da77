package kvcheck

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// Equal timestamps are concurrent in every checker (see the package doc).
// Each case is legal at the tie; moving one op 1ns later ("apart") makes it
// follow the op it tied with, and the verdicts change to what strict real
// time implies. So a checker that reads a tie as "before" fails the tie
// variant, and one that reads it as "never before" fails the apart variant.
type tieCase struct {
	name     string
	ops      string // history.jsonl lines
	stream   []history.Entry
	complete bool
	move     int // index of the op moved 1ns later in the apart variant; -1: every op i moved to i*1000ns
	tie      map[string]checker.Verdict
	apart    map[string]checker.Verdict // checkers not named are valid
}

var ab = []history.Entry{{Seq: 1, Key: "k", Value: "a"}, {Seq: 2, Key: "k", Value: "b"}}

var tieCases = []tieCase{
	{name: "issue minimal 10071", complete: true, stream: ab, move: 3,
		ops: `{"client":0,"type":"put","key":"k","value":"a","rev":1,"outcome":"ok","invoke":0,"complete":1000}
{"client":1,"type":"get","key":"k","value":"a","rev":1,"outcome":"ok","invoke":2000,"complete":3000}
{"client":1,"type":"update","key":"k","value":"c","expected_rev":1,"outcome":"fail","err":"wrong_last_seq","err_code":10071,"err_seq":2,"invoke":4000,"complete":5000}
{"client":0,"type":"update","key":"k","value":"b","expected_rev":1,"rev":2,"outcome":"ok","invoke":5000,"complete":6000}`,
		apart: map[string]checker.Verdict{cAttrib: checker.Invalid, cLin: checker.Invalid}},
	{name: "read your writes", complete: true, stream: ab, move: 2,
		ops: `{"client":1,"type":"put","key":"k","value":"a","rev":1,"outcome":"ok","invoke":0,"complete":1000}
{"client":0,"type":"put","key":"k","value":"b","rev":2,"outcome":"ok","invoke":1000,"complete":2000}
{"client":0,"type":"get","key":"k","value":"a","rev":1,"outcome":"ok","invoke":2000,"complete":3000}`,
		apart: map[string]checker.Verdict{cSession: checker.Invalid, cStale: checker.Invalid, cLin: checker.Invalid}},
	{name: "read your writes, zero-length", complete: true, stream: ab, move: 2,
		ops: `{"client":1,"type":"put","key":"k","value":"a","rev":1,"outcome":"ok","invoke":0,"complete":0}
{"client":0,"type":"put","key":"k","value":"b","rev":2,"outcome":"ok","invoke":2000,"complete":2000}
{"client":0,"type":"get","key":"k","value":"a","rev":1,"outcome":"ok","invoke":2000,"complete":2000}`,
		apart: map[string]checker.Verdict{cSession: checker.Invalid, cStale: checker.Invalid, cLin: checker.Invalid}},
	{name: "stale read from another client", complete: true, stream: ab, move: 2,
		ops: `{"client":0,"type":"put","key":"k","value":"a","rev":1,"outcome":"ok","invoke":0,"complete":1000}
{"client":0,"type":"put","key":"k","value":"b","rev":2,"outcome":"ok","invoke":1000,"complete":2000}
{"client":1,"type":"get","key":"k","value":"a","rev":1,"outcome":"ok","invoke":2000,"complete":3000}`,
		apart: map[string]checker.Verdict{cStale: checker.Invalid, cLin: checker.Invalid}},
	{name: "monotonic reads", complete: true, stream: ab, move: 3,
		ops: `{"client":1,"type":"put","key":"k","value":"a","rev":1,"outcome":"ok","invoke":0,"complete":500}
{"client":1,"type":"put","key":"k","value":"b","rev":2,"outcome":"ok","invoke":600,"complete":5000}
{"client":0,"type":"get","key":"k","value":"b","rev":2,"outcome":"ok","invoke":1000,"complete":2000}
{"client":0,"type":"get","key":"k","value":"a","rev":1,"outcome":"ok","invoke":2000,"complete":3000}`,
		apart: map[string]checker.Verdict{cSession: checker.Invalid, cLin: checker.Invalid}},
	{name: "monotonic reads, zero-length", complete: true, stream: ab, move: 3,
		ops: `{"client":1,"type":"put","key":"k","value":"a","rev":1,"outcome":"ok","invoke":0,"complete":500}
{"client":1,"type":"put","key":"k","value":"b","rev":2,"outcome":"ok","invoke":600,"complete":5000}
{"client":0,"type":"get","key":"k","value":"b","rev":2,"outcome":"ok","invoke":2000,"complete":2000}
{"client":0,"type":"get","key":"k","value":"a","rev":1,"outcome":"ok","invoke":2000,"complete":2000}`,
		apart: map[string]checker.Verdict{cSession: checker.Invalid, cLin: checker.Invalid}},
	// An indeterminate write the incomplete stream cannot settle, invoked as
	// the rejection completes.
	{name: "unsettled write", stream: ab[:1], move: 3,
		ops: `{"client":0,"type":"put","key":"k","value":"a","rev":1,"outcome":"ok","invoke":0,"complete":1000}
{"client":1,"type":"get","key":"k","value":"a","rev":1,"outcome":"ok","invoke":2000,"complete":3000}
{"client":1,"type":"update","key":"k","value":"c","expected_rev":1,"outcome":"fail","err":"wrong_last_seq","err_code":10071,"err_seq":2,"invoke":4000,"complete":5000}
{"client":0,"type":"update","key":"k","value":"b","expected_rev":1,"outcome":"info","err":"timeout","invoke":5000,"complete":6000}`,
		tie:   map[string]checker.Verdict{cIntegrity: checker.Unknown},
		apart: map[string]checker.Verdict{cAttrib: checker.Invalid, cLin: checker.Invalid, cIntegrity: checker.Unknown}},
	// The get that supplied revision 2 ends as the update is invoked, while
	// revision 2's write is still in flight: the update may go first.
	{name: "get ends as the update starts", complete: true, stream: ab, move: 3,
		ops: `{"client":0,"type":"put","key":"k","value":"a","rev":1,"outcome":"ok","invoke":0,"complete":1000}
{"client":0,"type":"put","key":"k","value":"b","rev":2,"outcome":"ok","invoke":1500,"complete":3500}
{"client":1,"type":"get","key":"k","value":"b","rev":2,"outcome":"ok","invoke":2000,"complete":3000}
{"client":1,"type":"update","key":"k","value":"c","expected_rev":2,"outcome":"fail","err":"wrong_last_seq","err_code":10071,"err_seq":1,"invoke":3000,"complete":3200}`,
		apart: map[string]checker.Verdict{cAttrib: checker.Invalid, cLin: checker.Invalid}},
	// Every op at one instant is legal in this order; spread one per
	// microsecond in history order it is still legal.
	{name: "one instant", complete: true, stream: ab, move: -1,
		ops: `{"client":2,"type":"get","key":"k","outcome":"ok","err":"not_found","invoke":0,"complete":0}
{"client":0,"type":"put","key":"k","value":"a","rev":1,"outcome":"ok","invoke":0,"complete":0}
{"client":0,"type":"get","key":"k","value":"a","rev":1,"outcome":"ok","invoke":0,"complete":0}
{"client":1,"type":"get","key":"k","value":"a","rev":1,"outcome":"ok","invoke":0,"complete":0}
{"client":1,"type":"update","key":"k","value":"b","expected_rev":1,"rev":2,"outcome":"ok","invoke":0,"complete":0}
{"client":0,"type":"update","key":"k","value":"c","expected_rev":1,"outcome":"fail","err":"wrong_last_seq","err_code":10071,"err_seq":2,"invoke":0,"complete":0}
{"client":2,"type":"create","key":"k","value":"d","outcome":"fail","err":"key_exists","err_code":10071,"err_seq":2,"invoke":0,"complete":0}
{"client":3,"type":"get","key":"k","value":"b","rev":2,"outcome":"ok","invoke":0,"complete":0}`},
}

func parseOps(t testing.TB, lines string) []history.Op {
	t.Helper()
	var ops []history.Op
	for _, l := range strings.Split(strings.TrimSpace(lines), "\n") {
		var o history.Op
		if err := json.Unmarshal([]byte(l), &o); err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		ops = append(ops, o)
	}
	return ops
}

func (c tieCase) variants(t testing.TB) (tie, apart history.History) {
	ops := parseOps(t, c.ops)
	moved := append([]history.Op(nil), ops...)
	if c.move < 0 {
		for i := range moved {
			moved[i].Invoke, moved[i].Complete = int64(i)*1000, int64(i)*1000
		}
	} else {
		o := &moved[c.move]
		o.Invoke++
		o.Complete = max(o.Complete, o.Invoke)
	}
	mk := func(ops []history.Op) history.History {
		return history.History{Ops: ops, Stream: c.stream, StreamComplete: c.complete}
	}
	return mk(ops), mk(moved)
}

func TestTies(t *testing.T) {
	for _, c := range tieCases {
		tie, apart := c.variants(t)
		for _, v := range []struct {
			name string
			h    history.History
			want map[string]checker.Verdict
		}{{"tie", tie, c.tie}, {"apart", apart, c.apart}} {
			for _, r := range Run(v.h, All(checker.Options{ChunkOps: 1})) {
				want := v.want[r.Name]
				if want == "" {
					want = checker.Valid
				}
				if r.Verdict != want {
					t.Errorf("%s (%s): %s is %s, want %s: %s %s", c.name, v.name, r.Name, r.Verdict, want, r.Summary, r.Reason)
				}
			}
		}
	}
}

// The minimal history, as a fixture file, is valid in every checker.
func TestTieFixtureValidEverywhere(t *testing.T) {
	for _, r := range Run(loadFixture(t, "tie_10071"), All(checker.Options{})) {
		if r.Verdict != checker.Valid {
			t.Errorf("%s: %s: %s", r.Name, r.Verdict, r.Summary)
		}
	}
}
