package run

import (
	"bytes"
	"testing"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/record"
)

// TestLiveFileFollowsTheCell: live.json holds the phase, the live line and
// every fault window so far, the open one without an end, each closed one
// with an end after its start even when healed at once.
func TestLiveFileFollowsTheCell(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	p := &progress{out: &out, cell: "c", dir: dir}
	read := func() record.Live {
		t.Helper()
		l, ok, err := record.ReadLive(dir)
		if !ok || err != nil {
			t.Fatalf("live.json: %v %v", ok, err)
		}
		return l
	}
	p.setPhase("workload")
	p.mu.Lock()
	p.start = time.Now().Add(-2 * time.Second)
	p.mu.Unlock()
	p.setFault("kill n1")
	p.print(record.OpCounts{Total: 7}, 3, false)
	l := read()
	if l.Cell != "c" || l.Phase != "workload" || l.Fault != "kill n1" || len(l.Windows) != 1 || l.Windows[0].End != 0 ||
		l.Windows[0].Start < 2 || l.Line == "" || bytes.Contains(out.Bytes(), []byte("ops")) {
		t.Fatalf("live %+v (printed %q): want the open kill window, the line, and nothing printed", l, out.String())
	}
	p.setFault("")
	p.setFault("restart n2")
	p.setFault("")
	l = read()
	if l.Fault != "" || len(l.Windows) != 2 {
		t.Fatalf("live %+v: want two closed windows and none in effect", l)
	}
	for _, w := range l.Windows {
		if w.End <= w.Start {
			t.Fatalf("window %+v ends before it starts", w)
		}
	}
}
