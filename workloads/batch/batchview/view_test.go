package batchview

import (
	"path/filepath"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/history"
	"github.com/jetstream-chaos/jetstream-chaos/record"
	"github.com/jetstream-chaos/jetstream-chaos/reports"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/batch"
)

// The chart counts answered multi-subject reads per second by the second
// each ended in, with messages or 404 No Results; a failed read is not
// answered; a cell without them (Direct Get off) gets no chart.
func TestMultiReadsChart(t *testing.T) {
	write := func(snaps ...history.Op) string {
		dir := t.TempDir()
		rec, err := history.NewRecorder(filepath.Join(dir, "history.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		rec.Add(batch.BatchOp(batch.Batch{ID: "0.1", Kind: batch.KindCommit, Size: 1, Outcome: history.OK, AckSeq: 1}, ""))
		for _, op := range snaps {
			rec.Add(op)
		}
		if err := rec.Close(); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	snap := func(endNs int64, got int, outcome history.Outcome) history.Op {
		s := batch.Snapshot{UpTo: 1, Subjects: []string{"B.s0"}}
		for range got {
			s.Got = append(s.Got, batch.Stored{Seq: 1, Subject: "B.s0", Batch: "0.1", Index: 1})
		}
		op := batch.SnapOp(s)
		op.Outcome, op.Invoke, op.Complete = outcome, endNs-1e6, endNs
		return op
	}
	c := &reports.Cell{CellResult: record.CellResult{Phases: map[string]float64{"workload": 3}}}
	dir := write(snap(2e8, 1, history.OK), snap(9e8, 0, history.OK), snap(21e8, 1, history.OK), snap(22e8, 1, history.Fail))
	if err := (view{}).Load(dir, c); err != nil {
		t.Fatal(err)
	}
	m, ok := c.Data.(*multiReads)
	if !ok || len(m.withMsgs) != 3 || m.withMsgs[0] != 1 || m.empty[0] != 1 || m.withMsgs[2] != 1 || m.withMsgs[1] != 0 {
		t.Fatalf("counts %+v", c.Data)
	}
	s := &reports.CellSection{}
	view{}.Cell(&reports.Page{}, c, s)
	if len(s.Charts) != 1 || s.Charts[0].Kind != KindMultiReads {
		t.Errorf("charts %+v", s.Charts)
	}
	c = &reports.Cell{}
	if err := (view{}).Load(write(), c); err != nil || c.Data != nil {
		t.Errorf("no multi-subject reads: %v %+v", err, c.Data)
	}
}
