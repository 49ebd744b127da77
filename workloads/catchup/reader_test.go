package catchup

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// Every get of the reader is an op of the history: a found message is ok,
// a sequence the replica does not hold is ok with not_found (an answer, a
// stale one), each with the sequence asked for and the phase.
func TestReaderRecordsGets(t *testing.T) {
	nc := embedded(t)
	ctx := context.Background()
	js, _ := jetstream.New(nc)
	st, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "R", Subjects: []string{"r.>"}})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := js.Publish(ctx, "r.x", []byte("v")); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.DeleteMsg(ctx, 1); err != nil {
		t.Fatal(err)
	}
	hist, err := history.NewRecorder(filepath.Join(t.TempDir(), "history.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var ph phaseNow
	ph.set(PhaseCatchup)
	r := &reader{nc: nc, stream: st, t0: time.Now(), last: func() uint64 { return 2 }, rec: opRecorder{hist}, client: 4, ph: &ph}
	rctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	r.run(rctx, 200)
	found := map[uint64]history.Op{}
	for _, op := range hist.Ops() {
		m, err := MsgOf(op)
		if err != nil || op.Type != OpGetMsg || op.Client != 4 || m.Phase != PhaseCatchup || op.Validate() != nil {
			t.Fatalf("op %+v (payload %+v, %v)", op, m, err)
		}
		found[m.Seq] = op
	}
	if op := found[1]; op.Outcome != history.OK || op.Err != history.ErrNotFound {
		t.Errorf("get of the deleted seq 1: %+v, want ok with not_found", op)
	}
	if op := found[2]; op.Outcome != history.OK || op.Err != "" {
		t.Errorf("get of seq 2: %+v, want ok", op)
	}
	if s := r.summary(); s.Gets != int64(len(hist.Ops())) {
		t.Errorf("%d gets summed, %d recorded", s.Gets, len(hist.Ops()))
	}
}
