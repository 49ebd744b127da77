package run

import (
	"bytes"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// The live line counts what the history records, for every workload:
// ops, and errors by kind; an op indeterminate by nature (no error kind,
// as queue's fire-and-forget ack) is no error, and a fault window no op.
// Recorded from many goroutines while read, it stays exact (go test -race).
func TestLiveOpsCountTheHistory(t *testing.T) {
	rec, err := history.NewRecorder(filepath.Join(t.TempDir(), "history.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	l := newLiveOps()
	rec.Watch(l.add)
	ops := []history.Op{
		{Client: 0, Key: "k", Type: history.Get, Outcome: history.OK},
		{Client: 0, Key: "k", Type: history.Update, Outcome: history.Fail, Err: history.ErrWrongLastSeq},
		{Client: 1, Key: "k", Type: history.Put, Outcome: history.Info, Err: history.ErrTimeout},
		{Client: 1, Key: "k", Type: history.Put, Outcome: history.Info},
		{Client: history.NemesisClient, Type: history.Fault, Outcome: history.OK, Fault: "kill"},
	}
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			for _, op := range ops {
				rec.Add(op)
				_ = l.counts()
			}
		})
	}
	wg.Wait()
	c := l.counts()
	if c.Total != 200 || c.OK != 50 || c.Failed != 50 || c.Indeterminate != 100 || c.ByType["put"] != 100 {
		t.Fatalf("counts %+v, want 200 ops: 50 ok, 50 failed, 100 indeterminate, 100 puts", c)
	}
	if n := errorCount(c.ErrorsByKind); n != 100 {
		t.Errorf("%d errors, want 100 (the put without an error kind is none)", n)
	}
	var out bytes.Buffer
	p := &progress{out: &out, cell: "c", phase: "workload", start: time.Now()}
	p.print(c, 12, true)
	want := "[c] workload 0s  200 ops  12 ops/s  errors 100 (timeout 50, wrong_last_seq 50)"
	if got := strings.TrimSpace(out.String()); got != want {
		t.Errorf("live line\n%q, want\n%q", got, want)
	}
	if (*liveOps)(nil).counts().Total != 0 {
		t.Error("counts before the history opens are not zero")
	}
}
