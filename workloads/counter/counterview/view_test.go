package counterview

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/history"
	"github.com/jetstream-chaos/jetstream-chaos/record"
	"github.com/jetstream-chaos/jetstream-chaos/reports"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/counter"
)

const sec = int64(1e9)

// writeCell stores adds and reads as a cell's history.
func writeCell(t *testing.T, adds []counter.Add, reads []counter.Read) string {
	t.Helper()
	dir := t.TempDir()
	rec, err := history.NewRecorder(filepath.Join(dir, "history.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range adds {
		op := counter.AddOp(a)
		op.Invoke, op.Complete = a.Invoke, a.Complete
		rec.Add(op)
	}
	for _, r := range reads {
		op := counter.ReadOp(r)
		op.Client, op.Invoke, op.Complete = r.Client, r.Invoke, r.Complete
		rec.Add(op)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// The chart's points: a read's distance below the highest total any client
// was told strictly before it began, the worst per 250 ms and path; a tie
// (told as the read begins) does not count; no point where a path read
// nothing. A cell with adds of either sign gets no chart.
func TestReadLag(t *testing.T) {
	told := func(total, complete int64) counter.Add {
		return counter.Add{ID: "x", Counter: "c", Delta: 1, Outcome: history.OK, Total: total, Told: true, Attempts: 1, Invoke: complete - 1, Complete: complete}
	}
	read := func(v, invoke int64, direct bool) counter.Read {
		return counter.Read{Counter: "c", Value: v, Direct: direct, Invoke: invoke, Complete: invoke + 1}
	}
	adds := []counter.Add{told(5, sec), told(9, 2*sec)}
	reads := []counter.Read{
		read(5, sec+1, false),   // bucket 4: level with 5
		read(3, sec+2, true),    // bucket 4: 2 behind
		read(2, sec+3, true),    // bucket 4: 3 behind, the worst
		read(1, 2*sec, true),    // a tie with the ack of 9: behind 5, not 9
		read(9, 2*sec+1, false), // bucket 8
	}
	c := &reports.Cell{CellResult: record.CellResult{Phases: map[string]float64{"workload": 3}}}
	if err := (view{}).Load(writeCell(t, adds, reads), c); err != nil {
		t.Fatal(err)
	}
	l, ok := c.Data.(*lag)
	if !ok || len(l.t) != 9 {
		t.Fatalf("data %+v", c.Data)
	}
	if l.direct[4] != 3 || l.leader[4] != 0 || l.direct[8] != 4 || l.leader[8] != 0 || !math.IsNaN(l.direct[0]) {
		t.Errorf("direct %v, leader %v", l.direct, l.leader)
	}
	s := &reports.CellSection{}
	view{}.Cell(&reports.Page{}, c, s)
	if len(s.Charts) != 1 || s.Charts[0].Kind != KindReadLag {
		t.Errorf("charts %+v", s.Charts)
	}

	mixed := append(adds, counter.Add{ID: "y", Counter: "c", Delta: -2, Outcome: history.OK, Complete: 3 * sec})
	c = &reports.Cell{}
	if err := (view{}).Load(writeCell(t, mixed, reads), c); err != nil || c.Data != nil {
		t.Errorf("a mixed cell: %v, %+v", err, c.Data)
	}
}
