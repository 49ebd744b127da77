package queueview

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/record"
	"github.com/jetstream-chaos/jetstream-chaos/reports"
)

func TestChartsFromQueueCSV(t *testing.T) {
	dir := t.TempDir()
	csv := "second,published,publish_failed,publish_indeterminate,deliveries,redeliveries,acks,naks,latency_p50_ms,latency_p99_ms,latency_max_ms,pending_total,pending_c0,pending_c1,faults\n" +
		"0,213,0,0,433,9,420,9,1.2,12.4,28.0,,,,\n" +
		"1,285,0,0,586,14,566,14,1.4,25.7,34.3,6,4,2,\n" +
		"2,280,0,0,560,10,550,10,1.3,20.1,30.0,8,5,3,kill\n" +
		"9,0,0,0,12,0,12,0,,,,0,0,0,\n" // the drain, after the workload
	if err := os.WriteFile(filepath.Join(dir, "queue.csv"), []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	c := &reports.Cell{CellResult: record.CellResult{Phases: map[string]float64{"workload": 3}}}
	if err := (view{}).Load(dir, c); err != nil {
		t.Fatal(err)
	}
	s := &reports.CellSection{}
	view{}.Cell(&reports.Page{}, c, s)
	if len(s.Charts) != 2 || s.Charts[0].Kind != KindLatency || s.Charts[1].Kind != KindPending {
		t.Fatalf("charts %+v", s.Charts)
	}
	sr := c.Data.(*series)
	if got := sr.points("pending_c0", 3); len(got) != 2 || got[1].Y != 5 {
		t.Errorf("pending c0 up to the workload's end: %v (an empty sample is skipped, the drain not drawn)", got)
	}
	if err := (view{}).Load(t.TempDir(), &reports.Cell{}); err == nil {
		t.Error("a cell without queue.csv loaded")
	}
}
