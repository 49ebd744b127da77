package msgid

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

func embedded(t *testing.T) jetstream.JetStream {
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
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return js
}

// ReadBack names what it read, the duplicates and the messages without an
// id; a deleted message is missing by its id; a stream it cannot read is
// an incomplete read that says why, never an empty complete one.
func TestReadBack(t *testing.T) {
	js := embedded(t)
	ctx := context.Background()
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "T", Subjects: []string{"t.>"}}); err != nil {
		t.Fatal(err)
	}
	var acked Set
	publish := func(id string) {
		t.Helper()
		m := nats.NewMsg("t.x")
		if id != "" {
			m.Header.Set(Header, id)
		}
		if _, err := js.PublishMsg(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	for p := range 2 {
		for n := uint64(1); n <= 50; n++ {
			id := ID{p, n}
			acked.Add(id)
			publish(id.String())
		}
	}
	publish("1.7") // a duplicate
	publish("")    // no id
	publish("x.y") // not an id

	got, r := ReadBack(ctx, js, "T", 10*time.Second)
	if !r.Complete || r.Messages != 103 || r.Dups != 1 || r.Malformed != 2 || r.LastSeq != 103 || got.Len() != 100 {
		t.Fatalf("read back %+v, %d ids", r, got.Len())
	}
	if missing, extra, _ := Diff(&acked, got, 5); missing != 0 || extra != 0 {
		t.Errorf("Diff = %d missing, %d extra", missing, extra)
	}

	st, err := js.Stream(ctx, "T")
	if err != nil {
		t.Fatal(err)
	}
	if err := st.DeleteMsg(ctx, 10); err != nil { // publisher 0's 10th
		t.Fatal(err)
	}
	got, r = ReadBack(ctx, js, "T", 10*time.Second)
	missing, _, ex := Diff(&acked, got, 5)
	if !r.Complete || missing != 1 || len(ex) != 1 || ex[0] != (ID{0, 10}) {
		t.Fatalf("after deleting seq 10: %+v, %d missing, examples %v", r, missing, ex)
	}

	got, r = ReadBack(ctx, js, "NONE", 2*time.Second)
	if r.Complete || got.Len() != 0 || !strings.HasPrefix(r.Detail, "stream info: ") {
		t.Errorf("read of a missing stream: %+v", r)
	}
}
