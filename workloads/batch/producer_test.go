package batch

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/client"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

func inProcess(t *testing.T) jetstream.JetStream {
	t.Helper()
	s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	s.Start()
	t.Cleanup(s.Shutdown)
	if !s.ReadyForConnections(5 * time.Second) {
		t.Fatal("server not ready")
	}
	nc, err := nats.Connect(s.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return js
}

// Every kind of batch against a real server: committed ones are stored
// whole where their ack says, the others are refused with the code the
// server gives them (or never committed), and the read-back of the stream
// is valid under both checks.
func TestProducerEveryKind(t *testing.T) {
	js := inProcess(t)
	ctx := context.Background()
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "B", Subjects: []string{"b.>"}, AllowAtomicPublish: true}); err != nil {
		t.Fatal(err)
	}
	p := &producer{idx: 0, js: js, subjects: []string{"b.x", "b.y"}, size: 3}
	var batches []Batch
	for _, tc := range []struct {
		kind    Kind
		outcome history.Outcome
		code    int
	}{
		{KindCommit, history.OK, 0},
		{KindWrongLastSeq, history.Fail, 10071},
		{KindAbandoned, history.Fail, 0},
		{KindDuplicateID, history.Fail, 10201},
		{KindCommit, history.OK, 0},
	} {
		b, err := p.publish(ctx, tc.kind)
		if b.Outcome != tc.outcome || b.Kind != tc.kind || client.Classify(err).Code != tc.code {
			t.Fatalf("%s batch: %+v, error %v; want %s with code %d", tc.kind, b, err, tc.outcome, tc.code)
		}
		batches = append(batches, b)
	}
	if batches[0].AckSeq != 3 || batches[4].AckSeq != 6 {
		t.Errorf("acks at %d and %d, want 3 and 6", batches[0].AckSeq, batches[4].AckSeq)
	}
	rb := readBack(ctx, js, "B", 10*time.Second)
	if !rb.Complete || len(rb.Msgs) != 6 || rb.Msgs[0] != (Stored{Seq: 1, Subject: "b.x", Batch: "0.1", Index: 1}) {
		t.Fatalf("read back %+v", rb)
	}
	reader := make([]Delivery, len(rb.Msgs))
	for i, m := range rb.Msgs {
		reader[i] = Delivery{Reader: "r", Seq: m.Seq, Batch: m.Batch, Index: m.Index, Op: -1}
	}
	for _, r := range []checker.Result{Atomic(batches, rb, 0), Isolation(batches, rb, reader, nil, 0)} {
		if r.Verdict != checker.Valid {
			t.Errorf("%s: %s (%s)", r.Name, r.Verdict, r.Summary)
		}
	}
	// The checks see a batch cut in two for what it is.
	st, _ := js.Stream(ctx, "B")
	if err := st.DeleteMsg(ctx, 5); err != nil {
		t.Fatal(err)
	}
	if r := Atomic(batches, readBack(ctx, js, "B", 10*time.Second), 0); r.Verdict != checker.Invalid || r.Counts["partial"] != 1 {
		t.Errorf("after deleting a batch's middle: %s, %v", r.Verdict, r.Counts)
	}
}

// A stream that does not allow atomic publish refuses the first message
// (10174): nothing was committed, so the batch failed for sure.
func TestProducerRefusedStream(t *testing.T) {
	js := inProcess(t)
	ctx := context.Background()
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "P", Subjects: []string{"p.>"}}); err != nil {
		t.Fatal(err)
	}
	p := &producer{js: js, subjects: []string{"p.x"}, size: 2}
	b, err := p.publish(ctx, KindCommit)
	var api *jetstream.APIError
	if b.Outcome != history.Fail || !errors.As(err, &api) || api.ErrorCode != 10174 {
		t.Errorf("batch on a plain stream: %+v, %v", b, err)
	}
}
