package kvupdate

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// embedded starts one in-process JetStream server: enough to test the
// client loop and the observer without Docker.
func embedded(t *testing.T) []cluster.Node {
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
	return []cluster.Node{{Name: "solo", ClientURL: s.ClientURL()}}
}

func TestRunRecordsEveryOpAndObservesTheStream(t *testing.T) {
	for _, p := range Patterns {
		t.Run(string(p), func(t *testing.T) {
			nodes := embedded(t)
			opts := Options{Replicas: 1, Keys: 4, Clients: 2, Pattern: p, DirectGet: p != Contended}.WithDefaults()
			if err := opts.Validate(1); err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			w, err := Setup(ctx, nodes, opts)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			rec, err := history.NewRecorder(t.TempDir() + "/history.jsonl")
			if err != nil {
				t.Fatal(err)
			}
			runCtx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
			defer cancel()
			if err := w.Run(runCtx, rec); err != nil {
				t.Fatal(err)
			}
			if err := w.FinalReads(ctx, rec); err != nil {
				t.Fatal(err)
			}
			entries, complete, err := w.ReadStream(ctx, 5*time.Second)
			if err != nil || !complete {
				t.Fatalf("ReadStream: complete=%v err=%v", complete, err)
			}
			bySeq := map[uint64]history.Entry{}
			for _, e := range entries {
				bySeq[e.Seq] = e
			}
			values := map[string]bool{}
			writes := 0
			for _, op := range rec.Ops() {
				if op.Node != "solo" {
					t.Fatalf("op without its node: %+v", op)
				}
				if !op.IsWrite() {
					continue
				}
				if values[op.Value] {
					t.Fatalf("value %q written twice", op.Value)
				}
				values[op.Value] = true
				if op.Outcome != history.OK {
					continue
				}
				writes++
				if e := bySeq[op.Rev]; e.Key != op.Key || e.Value != op.Value {
					t.Fatalf("ack %+v not in stream at its revision: %+v", op, e)
				}
			}
			if writes == 0 || len(entries) != writes {
				t.Fatalf("%d acknowledged writes, %d stream entries", writes, len(entries))
			}
		})
	}
}

func TestOptionsValidate(t *testing.T) {
	cases := []struct {
		name string
		o    Options
		ok   bool
	}{
		{"defaults", Options{}.WithDefaults(), true},
		{"more writers than keys", Options{Keys: 2, Clients: 3}.WithDefaults(), false},
		{"contended may share keys", Options{Keys: 2, Clients: 3, Pattern: Contended}.WithDefaults(), true},
		{"replicas above cluster", Options{Replicas: 5}.WithDefaults(), false},
		{"unknown pattern", Options{Pattern: "nope"}.WithDefaults(), false},
		{"negative rate", Options{Rate: -1}.WithDefaults(), false},
	}
	for _, c := range cases {
		if err := c.o.Validate(3); (err == nil) != c.ok {
			t.Errorf("%s: Validate = %v, want ok=%v", c.name, err, c.ok)
		}
	}
}
