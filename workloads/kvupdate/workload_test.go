package kvupdate

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/jetstream-chaos/jetstream-chaos/checker/replicas"
	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// embedded starts one in-process JetStream server: enough to test the
// client loop and the observer without Docker.
func embedded(t *testing.T) []cluster.Node {
	t.Helper()
	s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, HTTPHost: "127.0.0.1", HTTPPort: -1,
		JetStream: true, StoreDir: t.TempDir(), ServerName: "solo"})
	if err != nil {
		t.Fatal(err)
	}
	s.Start()
	if !s.ReadyForConnections(5 * time.Second) {
		t.Fatal("embedded server not ready")
	}
	t.Cleanup(s.Shutdown)
	return []cluster.Node{{Name: "solo", ClientURL: s.ClientURL(), MonitorURL: "http://" + s.MonitorAddr().String()}}
}

func TestRunRecordsEveryOpAndObservesTheStream(t *testing.T) {
	deletes := Mix{Update: 70, Delete: 10, Purge: 10, Create: 10}
	cases := []struct {
		name    string
		pattern Pattern
		history History
		mix     Mix
	}{
		{"single-writer keep-all", SingleWriter, KeepAll, DefaultMix},
		{"contended history 1", Contended, 1, DefaultMix},
		{"blind-put history 64", BlindPut, 64, DefaultMix},
		{"single-writer history 1 deletes", SingleWriter, 1, deletes},
		{"contended history 1 deletes", Contended, 1, deletes},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			nodes := embedded(t)
			opts := Options{Replicas: 1, Keys: 4, Clients: 2, Pattern: c.pattern, DirectGet: c.pattern != Contended,
				History: c.history, Mix: c.mix, ValueSize: 64}.WithDefaults()
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
			final, lastSeq, complete, err := w.readStream(ctx, 5*time.Second)
			if err != nil || !complete {
				t.Fatalf("readStream: complete=%v err=%v", complete, err)
			}
			observed, head := w.DrainObservers(ctx, lastSeq, 5*time.Second)
			t.Logf("observed %d sequences: %+v", lastSeq, head.Observers)
			if head.Missing != 0 {
				t.Fatalf("observers missed %d of %d sequences: %+v", head.Missing, lastSeq, head.Observers)
			}
			checkEveryAckObserved(t, rec.Ops(), observed, final, c.history, c.mix)
			checkReplicaIsTheReadBack(t, w.ReadReplicas(ctx), final)
		})
	}
}

// checkEveryAckObserved: every acknowledged write is where its ack says,
// in what the observers saw, and the read-back holds at most the history.
func checkEveryAckObserved(t *testing.T, ops []history.Op, observed, final []history.Entry, h History, mix Mix) {
	t.Helper()
	bySeq := map[uint64]history.Entry{}
	for _, e := range observed {
		bySeq[e.Seq] = e
	}
	values := map[string]bool{}
	writes, markers := 0, 0
	for _, op := range ops {
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
		if op.IsMarker() {
			markers++
		}
		if e := bySeq[op.Rev]; e.Key != op.Key || e.Value != op.Value || e.Operation != op.MarkerOperation() {
			t.Fatalf("ack %+v not observed at its revision: %+v", op, e)
		}
	}
	if writes == 0 || len(observed) != writes {
		t.Fatalf("%d acknowledged writes, %d observed entries", writes, len(observed))
	}
	if (mix.Delete+mix.Purge > 0) != (markers > 0) {
		t.Fatalf("mix %s wrote %d markers", mix, markers)
	}
	perKey := map[string]int{}
	for _, e := range final {
		perKey[e.Key]++
		if h != KeepAll && perKey[e.Key] > int(h) {
			t.Fatalf("read-back holds %d revisions of %s with history %s", perKey[e.Key], e.Key, h)
		}
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
		{"10,000 keys", Options{Keys: MaxKeys}.WithDefaults(), true},
		{"above 10,000 keys", Options{Keys: MaxKeys + 1}.WithDefaults(), false},
		{"history 65", Options{History: 65}.WithDefaults(), false},
		{"keep all", Options{History: KeepAll}.WithDefaults(), true},
		{"zipf exponent 1", Options{KeyDist: KeyDist{Zipf: 1}}.WithDefaults(), false},
		{"value too large", Options{ValueSize: maxValueSize + 1}.WithDefaults(), false},
	}
	for _, c := range cases {
		if err := c.o.Validate(3); (err == nil) != c.ok {
			t.Errorf("%s: Validate = %v, want ok=%v", c.name, err, c.ok)
		}
	}
}

// checkReplicaIsTheReadBack: the one replica, read from its own store with
// its /jsz state, holds what the read-back does.
func checkReplicaIsTheReadBack(t *testing.T, reps []replicas.Replica, final []history.Entry) {
	t.Helper()
	if len(reps) != 1 || !reps[0].Complete || reps[0].Error != "" || reps[0].State == nil {
		t.Fatalf("replicas: %+v", reps)
	}
	rp := reps[0]
	if len(rp.Entries) != len(final) || int(rp.State.Messages) != len(final) {
		t.Fatalf("replica holds %d entries (/jsz: %d messages), the read-back %d", len(rp.Entries), rp.State.Messages, len(final))
	}
	for i := range final {
		if rp.Entries[i] != final[i] {
			t.Fatalf("replica entry %+v, read-back %+v", rp.Entries[i], final[i])
		}
	}
}

// The clients bind in Setup, before the run's clock: a run whose time
// limit is already over when it starts (a bind slower than a short
// --time-limit, as a clean-clone CI run saw) records no op and no error,
// and closing a workload whose clients never ran closes them.
func TestClientsBindBeforeTheClock(t *testing.T) {
	nodes := embedded(t)
	opts := Options{Replicas: 1, Keys: 2, Clients: 2, ValueSize: 8}.WithDefaults()
	ctx := context.Background()
	w, err := Setup(ctx, nodes, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.clients) != opts.Clients {
		t.Fatalf("%d clients bound in Setup, want %d", len(w.clients), opts.Clients)
	}
	rec, err := history.NewRecorder(t.TempDir() + "/history.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	over, cancel := context.WithDeadline(ctx, time.Now())
	defer cancel()
	if err := w.Run(over, rec); err != nil {
		t.Fatalf("a run whose clock is over: %v", err)
	}
	w.Close()
	other := opts
	other.Bucket = opts.Bucket + "-unused"
	unused, err := Setup(ctx, nodes, other)
	if err != nil {
		t.Fatal(err)
	}
	bound := unused.clients
	unused.Close()
	for _, c := range bound {
		if !c.nc.IsClosed() {
			t.Errorf("client %d left open by Close", c.id)
		}
	}
}
