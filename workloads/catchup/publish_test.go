package catchup

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/jetstream-chaos/jetstream-chaos/history"
	"github.com/jetstream-chaos/jetstream-chaos/history/msgid"
)

func mustParseID(t *testing.T, s string) msgid.ID {
	t.Helper()
	id, err := msgid.Parse(s)
	if err != nil {
		t.Fatalf("id %q: %v", s, err)
	}
	return id
}

// embedded starts one in-process JetStream server: enough to test the
// publishers, their acks and the read-back without Docker.
func embedded(t *testing.T) *nats.Conn {
	t.Helper()
	s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: t.TempDir(), ServerName: "solo"})
	if err != nil {
		t.Fatal(err)
	}
	s.Start()
	if !s.ReadyForConnections(5 * time.Second) {
		t.Fatal("embedded server not ready")
	}
	t.Cleanup(s.Shutdown)
	nc, err := nats.Connect(s.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}

func TestPublishAndReadBack(t *testing.T) {
	nc := embedded(t)
	ctx := context.Background()
	js, _ := jetstream.New(nc)
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "T", Subjects: []string{"t.>"}}); err != nil {
		t.Fatal(err)
	}
	var ph phaseNow
	ph.set(PhaseFill)
	f := &fleet{stats: newPubStats()}
	hist, err := history.NewRecorder(filepath.Join(t.TempDir(), "history.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	payload := randomPayload(1024, 1)
	rctx, stop := context.WithCancel(ctx)
	defer stop()
	for i := range 3 {
		pnc, err := nats.Connect(nc.ConnectedUrl())
		if err != nil {
			t.Fatal(err)
		}
		p, err := newPublisher(pnc, i, "t.data", payload, 64, 2*time.Second, f.stats, &ph, opRecorder{hist})
		if err != nil {
			t.Fatal(err)
		}
		f.pubs = append(f.pubs, p)
		go p.reap(rctx)
	}
	defer f.close()

	// Unpaced, as the fill: stop at 3000 acked messages.
	const want = 3000
	f.run(ctx, 0, func() bool { return f.stats.ackedBytes()+int64(f.inFlight()+1)*1024 <= want*1024 })
	// Paced, as while the target is down: 200 KiB/s for half a second.
	ph.set(PhaseDown)
	pctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	f.run(pctx, 200<<10, func() bool { return true })
	cancel()

	s := f.stats.summary()
	if s.Failed+s.TimedOut != 0 || s.Acked != s.Sent {
		t.Fatalf("publish summary %+v", s)
	}
	// Publishers check the total concurrently: each may overshoot by one.
	if fill := s.Latency[PhaseFill]; fill.Count < want || fill.Count > want+3 || fill.P99Ms <= 0 {
		t.Errorf("fill latency %+v, want %d acks (+3)", fill, want)
	}
	down := s.Latency[PhaseDown].Count
	if down < 50 || down > 150 { // 200 msgs/s for 0.5 s, give or take the burst and the start
		t.Errorf("%d acks while paced at 200/s for 0.5s", down)
	}
	if s.AckedB != s.Acked*1024 || s.PerSecond != nil {
		t.Errorf("acked %d, %d bytes; per-second series %v", s.Acked, s.AckedB, s.PerSecond)
	}

	acked := f.acked()
	if acked.Len() != uint64(s.Acked) {
		t.Fatalf("acked set %d, summary %d", acked.Len(), s.Acked)
	}
	// Every publish is an op of the history, acknowledged at its sequence.
	f.abandon()
	ops, seqs := hist.Ops(), map[uint64]bool{}
	for _, op := range ops {
		m, err := MsgOf(op)
		if err != nil || op.Type != OpPublish || op.Outcome != history.OK || op.Node != "solo" || m.Seq == 0 || seqs[m.Seq] ||
			!acked.Has(mustParseID(t, m.ID)) || op.Complete < op.Invoke || op.Validate() != nil {
			t.Fatalf("op %+v (payload %+v, %v): want an acknowledged publish of a new sequence", op, m, err)
		}
		seqs[m.Seq] = true
	}
	if int64(len(ops)) != s.Acked {
		t.Fatalf("%d publish ops, %d acked", len(ops), s.Acked)
	}
	got, in := msgid.ReadBack(ctx, js, "T", 10*time.Second)
	if !in.Complete || in.Messages != uint64(s.Acked) || in.Dups != 0 || in.Malformed != 0 {
		t.Fatalf("read back %+v", in)
	}
	if missing, extra, _ := msgid.Diff(acked, got, 5); missing != 0 || extra != 0 {
		t.Errorf("Diff = %d missing, %d extra", missing, extra)
	}

	// A message deleted from the stream is reported missing, by id.
	st, _ := js.Stream(ctx, "T")
	if err := st.DeleteMsg(ctx, 10); err != nil {
		t.Fatal(err)
	}
	raw, err := st.GetMsg(ctx, 11)
	if err != nil {
		t.Fatal(err)
	}
	got, in = msgid.ReadBack(ctx, js, "T", 10*time.Second)
	missing, _, ex := msgid.Diff(acked, got, 5)
	if !in.Complete || missing != 1 || len(ex) != 1 {
		t.Fatalf("after deleting seq 10: complete %v, %d missing, examples %v", in.Complete, missing, ex)
	}
	if next, _ := msgid.Parse(raw.Header.Get(msgid.Header)); next == ex[0] {
		t.Errorf("the missing id %v is seq 11's, not seq 10's", ex[0])
	}
}
