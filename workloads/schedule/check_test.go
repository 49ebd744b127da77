package schedule

import (
	"errors"
	"io/fs"
	"testing"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/checker/replicas"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

const sec = int64(time.Second)

// base is a wall-clock origin for the fixtures: a whole second.
var base = time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC).UnixNano()

func at(s float64) int64 { return base + int64(s*float64(sec)) }

var bounds = Bounds{Fire: 5 * time.Second, Grace: 30 * time.Second}

// oneShot is an acknowledged create of schedule id, due at due seconds,
// acknowledged at ack seconds.
func oneShot(id string, due, ack float64, outcome history.Outcome) CreateAt {
	return CreateAt{Schedule: Schedule{Subject: "S.sched." + id, Target: "S.target." + id, Kind: KindAt, At: at(due), Body: id,
		Seq: 1, WallInvoke: at(ack - 0.01), WallComplete: at(ack)}, H: history.Op{Type: OpCreate, Outcome: outcome}}
}

func fired(id string, seq uint64, stored float64, next string) Firing {
	return Firing{Seq: seq, Target: "S.target." + id, Scheduler: "S.sched." + id, Next: next, Body: id, Time: at(stored)}
}

func nextAt(s float64) string { return time.Unix(0, at(s)).UTC().Format(time.RFC3339Nano) }

func input(creates []CreateAt, firings []Firing, readAt float64, windows ...Window) Input {
	return Input{Ops: Ops{Creates: creates, Windows: windows}, Final: Final{Firings: firings, Complete: true, ReadAt: at(readAt)}, Bounds: bounds}
}

func expect(t *testing.T, r checker.Result, verdict checker.Verdict, kind string) {
	t.Helper()
	if r.Verdict != verdict {
		t.Fatalf("verdict %s, want %s: %s %v %+v", r.Verdict, verdict, r.Summary, r.Counts, r.Anomalies)
	}
	if kind != "" && r.Counts[kind] == 0 {
		t.Fatalf("no %s counted: %v", kind, r.Counts)
	}
	if verdict == checker.Invalid && (len(r.Anomalies) == 0 || r.Anomalies[0].Description == "") {
		t.Fatalf("invalid without an example: %+v", r)
	}
}

// schedule-once flags each anomaly it names on a hand-made history and
// stays quiet on clean ones, ties and the bounds' edges included.
func TestOnce(t *testing.T) {
	ok, info, fail := history.OK, history.Info, history.Fail
	win := Window{Start: at(9), End: at(12), Fault: "kill"}
	cases := []struct {
		name    string
		in      Input
		verdict checker.Verdict
		kind    string
	}{
		{"no ops", input(nil, nil, 0), checker.Valid, ""},
		{"fired on time", input([]CreateAt{oneShot("a", 10, 7, ok)}, []Firing{fired("a", 2, 10.1, NextPurge)}, 30), checker.Valid, "fired"},
		{"fired exactly at its time (a tie)", input([]CreateAt{oneShot("a", 10, 7, ok)}, []Firing{fired("a", 2, 10, NextPurge)}, 30), checker.Valid, "fired"},
		{"fired exactly at the bound", input([]CreateAt{oneShot("a", 10, 7, ok)}, []Firing{fired("a", 2, 15, NextPurge)}, 30), checker.Valid, "fired"},
		{"fired early", input([]CreateAt{oneShot("a", 10, 7, ok)}, []Firing{fired("a", 2, 9.999, NextPurge)}, 30), checker.Invalid, "early"},
		{"fired twice", input([]CreateAt{oneShot("a", 10, 7, ok)}, []Firing{fired("a", 2, 10.1, NextPurge), fired("a", 3, 10.2, NextPurge)}, 30), checker.Invalid, "fired_twice"},
		{"never fired", input([]CreateAt{oneShot("a", 10, 7, ok)}, nil, 30), checker.Invalid, "never_fired"},
		{"not fired, read before its deadline", input([]CreateAt{oneShot("a", 10, 7, ok)}, nil, 14), checker.Unknown, "unread"},
		{"fired late", input([]CreateAt{oneShot("a", 10, 7, ok)}, []Firing{fired("a", 2, 15.001, NextPurge)}, 30), checker.Invalid, "late"},
		{"late after a fault, within its grace", input([]CreateAt{oneShot("a", 10, 7, ok)}, []Firing{fired("a", 2, 40, NextPurge)}, 60, win), checker.Valid, "due_in_fault"},
		{"late past a fault's grace", input([]CreateAt{oneShot("a", 10, 7, ok)}, []Firing{fired("a", 2, 42.001, NextPurge)}, 60, win), checker.Invalid, "late"},
		{"acknowledged after its time: bound from the ack", input([]CreateAt{oneShot("a", 10, 12, ok)}, []Firing{fired("a", 2, 16.5, NextPurge)}, 30), checker.Valid, "fired"},
		{"indeterminate create never fired", input([]CreateAt{oneShot("a", 10, 7, info)}, nil, 30), checker.Valid, "indeterminate_unfired"},
		{"indeterminate create fired late (no bound)", input([]CreateAt{oneShot("a", 10, 7, info)}, []Firing{fired("a", 2, 25, NextPurge)}, 30), checker.Valid, "indeterminate_fired"},
		{"refused create fired", input([]CreateAt{oneShot("a", 10, 7, fail)}, []Firing{fired("a", 2, 10.1, NextPurge)}, 30), checker.Invalid, "refused_fired"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { expect(t, Once(c.in, 0), c.verdict, c.kind) })
	}

	t.Run("due at a fault's edges", func(t *testing.T) {
		in := input([]CreateAt{oneShot("a", 8, 5, ok), oneShot("b", 12.5, 5, ok), oneShot("c", 14, 5, ok)},
			[]Firing{fired("a", 1, 8, NextPurge), fired("b", 2, 13, NextPurge), fired("c", 3, 14, NextPurge)}, 60, win)
		r := Once(in, 0)
		if r.Counts["due_at_fault_edge"] != 2 || r.Counts["due_in_fault"] != 0 {
			t.Errorf("counts %v: want a and b at the edges of 9-12, none inside", r.Counts)
		}
	})
	t.Run("no stored bounds", func(t *testing.T) {
		in := input([]CreateAt{oneShot("a", 10, 7, ok), oneShot("b", 10, 7, ok)}, []Firing{fired("a", 2, 99, NextPurge)}, 120)
		in.Bounds = Bounds{}
		r := Once(in, 0)
		if r.Verdict != checker.Unknown || r.Counts["unbounded"] != 1 || r.Counts["late"]+r.Counts["never_fired"] != 0 {
			t.Fatalf("%s %v: without bounds nothing is late or lost", r.Verdict, r.Counts)
		}
		if r := Repeat(in, 0); r.Verdict != checker.Valid {
			t.Fatalf("no repeating schedule: %s %v", r.Verdict, r.Counts)
		}
	})
	t.Run("incomplete read-back", func(t *testing.T) {
		in := input([]CreateAt{oneShot("a", 10, 7, ok)}, nil, 30)
		in.Final.Complete, in.Final.Detail = false, "read back: not done within 1m0s"
		expect(t, Once(in, 0), checker.Unknown, "unread")
	})
	t.Run("a firing read live and lost", func(t *testing.T) {
		in := input([]CreateAt{oneShot("a", 10, 7, ok)}, nil, 30)
		f := fired("a", 2, 10.1, NextPurge)
		f.Seen = at(10.2)
		in.Ops.Seen = []SeenAt{{Firing: f, Op: 3}}
		r := Once(in, 0)
		expect(t, r, checker.Invalid, "lost")
		if r.Counts["never_fired"] != 0 || r.Counts["fired"] != 1 {
			t.Errorf("the firing read live counts as fired: %v", r.Counts)
		}
	})
	t.Run("a firing read live and in the read-back is one firing", func(t *testing.T) {
		f := fired("a", 2, 10.1, NextPurge)
		in := input([]CreateAt{oneShot("a", 10, 7, ok)}, []Firing{f}, 30)
		in.Ops.Seen = []SeenAt{{Firing: f, Op: 3}}
		expect(t, Once(in, 0), checker.Valid, "fired")
	})
	t.Run("a copy and its origin's message are one firing (work queue)", func(t *testing.T) {
		copied, pending := fired("a", 1, 10.1, NextPurge), fired("a", 2, 10.1, NextPurge)
		copied.OriginSeq, pending.OriginSeq = 2, 2
		in := input([]CreateAt{oneShot("a", 10, 7, ok)}, []Firing{copied}, 30)
		in.Ops.Seen = []SeenAt{{Firing: pending}}
		expect(t, Once(in, 0), checker.Valid, "fired")
	})
}

// every is an acknowledged repeating schedule created at created seconds.
func every(id string, created float64) CreateAt {
	return CreateAt{Schedule: Schedule{Subject: "S.sched." + id, Target: "S.target." + id, Kind: KindEvery, Every: 2 * time.Second,
		Body: id, WallInvoke: at(created), WallComplete: at(created + 0.01)}, H: history.Op{Type: OpCreate, Outcome: history.OK}}
}

// schedule-repeat flags a period fired twice, a firing before its named
// time and a missed period, and stays quiet on a clean series, a tie
// with the named time, a delay within a fault's grace, and the server's
// rounding of the first due time.
func TestRepeat(t *testing.T) {
	c := every("r", 10.2) // stored ~10.2: first due round(10.2)+2 = 12
	clean := []Firing{fired("r", 1, 12.001, nextAt(14)), fired("r", 2, 14, nextAt(16)), fired("r", 3, 16.002, nextAt(18))}
	stop := Stop{Subject: c.Subject, Wall: at(17)}
	in := func(fs []Firing, windows ...Window) Input {
		i := input([]CreateAt{c}, fs, 30, windows...)
		i.Ops.Stops = []Stop{stop}
		return i
	}
	cases := []struct {
		name    string
		in      Input
		verdict checker.Verdict
		kind    string
	}{
		{"clean, a tie with the named time", in(clean), checker.Valid, "firings"},
		{"first due rounded down", in([]Firing{fired("r", 1, 11.75, nextAt(13.75)), fired("r", 2, 13.75, nextAt(15.75)), fired("r", 3, 15.75, nextAt(17.75))}), checker.Valid, "firings"},
		{"one period fired twice", in(append(clean[:2:2], fired("r", 3, 14.1, nextAt(16)), clean[2])), checker.Invalid, "fired_twice"},
		{"fired before the named time", in([]Firing{clean[0], fired("r", 2, 13.9, nextAt(16)), clean[2]}), checker.Invalid, "early"},
		{"the first fired before its period", in([]Firing{fired("r", 1, 11.5, nextAt(13.5))}), checker.Invalid, "early"},
		{"a period missed", in([]Firing{clean[0], fired("r", 2, 19.5, nextAt(21.5))}), checker.Invalid, "missed"},
		{"delayed by a fault, within its grace", in([]Firing{clean[0], fired("r", 2, 40, nextAt(42))}, Window{Start: at(13), End: at(15), Fault: "kill"}), checker.Valid, "firings"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { expect(t, Repeat(tc.in, 0), tc.verdict, tc.kind) })
	}
	t.Run("never fired before its stop", func(t *testing.T) {
		i := in(nil)
		i.Ops.Stops = []Stop{{Subject: c.Subject, Wall: at(17.71)}} // first due at most 10.21+2+0.5, bound 5
		expect(t, Repeat(i, 0), checker.Valid, "")
		i.Ops.Stops = []Stop{{Subject: c.Subject, Wall: at(17.72)}}
		expect(t, Repeat(i, 0), checker.Invalid, "missed")
	})
	t.Run("a gap with an incomplete read-back", func(t *testing.T) {
		i := in([]Firing{clean[0], fired("r", 2, 19.5, nextAt(21.5))})
		i.Final.Complete = false
		expect(t, Repeat(i, 0), checker.Unknown, "unread")
	})
	t.Run("stopped with the last period just at its bound", func(t *testing.T) {
		i := in(clean)
		i.Ops.Stops = []Stop{{Subject: c.Subject, Wall: at(23)}} // due 18 + 5
		expect(t, Repeat(i, 0), checker.Valid, "firings")
		i.Ops.Stops = []Stop{{Subject: c.Subject, Wall: at(23.001)}}
		expect(t, Repeat(i, 0), checker.Invalid, "missed")
	})
}

// schedule-removed flags a fired one-shot's schedule left on a replica,
// is unknown without the replicas or with one read in part, and quiet
// when every replica dropped it or it never fired.
func TestRemoved(t *testing.T) {
	cr := []CreateAt{oneShot("a", 10, 7, history.OK), oneShot("b", 10, 7, history.OK)}
	in := input(cr, []Firing{fired("a", 3, 10.1, NextPurge)}, 30)
	clean := []replicas.Replica{{Node: "n1", Complete: true, Entries: []history.Entry{{Seq: 2, Key: "S.sched.b"}, {Seq: 3, Key: "S.target.a"}}},
		{Node: "n2", Complete: true, Entries: []history.Entry{{Seq: 2, Key: "S.sched.b"}, {Seq: 3, Key: "S.target.a"}}}}
	expect(t, Removed(in, clean, nil, 0), checker.Valid, "checked")
	left := append([]replicas.Replica{{Node: "n3", Complete: true, Entries: []history.Entry{{Seq: 1, Key: "S.sched.a"}}}}, clean...)
	r := Removed(in, left, nil, 0)
	expect(t, r, checker.Invalid, "left")
	if r.Anomalies[0].Key != "S.sched.a" {
		t.Errorf("example names %q", r.Anomalies[0].Key)
	}
	expect(t, Removed(in, nil, fs.ErrNotExist, 0), checker.Unknown, "unread")
	expect(t, Removed(in, nil, errors.New("replicas.json: bad"), 0), checker.Unknown, "unread")
	part := []replicas.Replica{{Node: "n1", Error: "fetch from n1: timeout"}}
	expect(t, Removed(in, part, nil, 0), checker.Unknown, "unread")
}

// deadline: a window that overlaps the span, or ended within its grace
// before the due time, moves the deadline to its end plus the grace, and
// may move it into another window; one ended long before does not.
func TestDeadline(t *testing.T) {
	w := func(s, e float64) Window { return Window{Start: at(s), End: at(e), Fault: "kill"} }
	cases := []struct {
		name    string
		due     float64
		windows []Window
		want    float64
	}{
		{"no window", 10, nil, 15},
		{"window over the due time", 10, []Window{w(9, 12)}, 42},
		{"window starting within the bound", 10, []Window{w(14, 16)}, 46},
		{"window starting after the bound", 10, []Window{w(15.5, 16)}, 15},
		{"window ended just before", 10, []Window{w(1, 2)}, 32},
		{"window ended long before", 100, []Window{w(1, 2)}, 105},
		{"chained windows", 10, []Window{w(9, 12), w(40, 41)}, 71},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got, _ := deadline(at(c.due), bounds.Fire, bounds.Grace, c.windows); got != at(c.want) {
				t.Errorf("deadline %s, want %s", since(base, got), since(base, at(c.want)))
			}
		})
	}
}

// In a work-queue cell schedule-removed judges the leader's copy, and is
// unknown unless every server reports the same state.
func TestRemovedWorkQueue(t *testing.T) {
	cr := []CreateAt{oneShot("a", 10, 7, history.OK)}
	in := input(cr, []Firing{fired("a", 3, 10.1, NextPurge)}, 30)
	st := &replicas.State{Messages: 1, FirstSeq: 4, LastSeq: 4}
	in.Final.States = []replicas.Replica{{Node: "n1", State: st}, {Node: "n2", State: st}, {Node: "n3", State: st}}
	in.Final.LeaderSchedules = []history.Entry{{Seq: 4, Key: "S.sched.r0"}}
	expect(t, Removed(in, nil, fs.ErrNotExist, 0), checker.Valid, "checked")
	in.Final.LeaderSchedules = append(in.Final.LeaderSchedules, history.Entry{Seq: 1, Key: "S.sched.a"})
	expect(t, Removed(in, nil, fs.ErrNotExist, 0), checker.Invalid, "left")
	in.Final.LeaderSchedules = in.Final.LeaderSchedules[:1]
	in.Final.States[2].State = &replicas.State{Messages: 2, FirstSeq: 3, LastSeq: 4}
	expect(t, Removed(in, nil, fs.ErrNotExist, 0), checker.Unknown, "replica_states_differ")
}
