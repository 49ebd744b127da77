package batch

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/checker/replicas"
	"github.com/jetstream-chaos/jetstream-chaos/client/clienttest"
	"github.com/jetstream-chaos/jetstream-chaos/history"
	"github.com/jetstream-chaos/jetstream-chaos/workloads"
)

// A cell on an in-process server, with no fault: every kind of batch is
// tried and recorded, the readers deliver, Finish stores the read-back and
// the one server's copy, and Check on the stored files finds both checks
// valid and replica-divergence unknown (one copy: nothing to compare; the
// Docker test compares three). Then a batch the
// stream lost in part makes the stored cell invalid.
func TestInstanceOnAServer(t *testing.T) {
	nodes, _ := clienttest.Server(t, 1)
	dir := t.TempDir()
	hist, err := history.NewRecorder(filepath.Join(dir, "history.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	env := &workloads.Env{Cluster: clienttest.Cluster{N: nodes}, Dir: dir, History: hist,
		Phase: func(string) {}, Logf: t.Logf}
	o := Options{Stream: "BT", Subjects: 3, BatchSize: 4, Producers: 3, Replicas: 1, Seed: 1, DirectGet: true,
		Mix: Mix{WrongLastSeq: 10, Abandoned: 10, DuplicateID: 10, Plain: 10}}
	ctx := context.Background()
	i, err := setup(ctx, o, env)
	if err != nil {
		t.Fatal(err)
	}
	defer i.Close()
	rctx, cancel := context.WithTimeout(ctx, 1500*time.Millisecond)
	defer cancel()
	if err := i.Run(rctx, nil); err != nil {
		t.Fatal(err)
	}
	if err := i.Finish(ctx); err != nil {
		t.Fatal(err)
	}
	if err := hist.Close(); err != nil {
		t.Fatal(err)
	}
	ops, _ := history.ReadOps(filepath.Join(dir, "history.jsonl"))
	rec, err := FromHistory(ops)
	if err != nil {
		t.Fatal(err)
	}
	batches, deliveries := rec.Batches, rec.Deliveries
	kinds := map[Kind]int{}
	for _, b := range batches {
		kinds[b.Kind]++
	}
	if kinds[KindCommit] < 10 || kinds[KindWrongLastSeq] == 0 || kinds[KindDuplicateID] == 0 || kinds[KindAbandoned] == 0 || kinds[KindPlain] == 0 ||
		len(deliveries) < 40 || len(rec.Snapshots) < 10 {
		t.Fatalf("tried %v, %d deliveries, %d multi-subject reads", kinds, len(deliveries), len(rec.Snapshots))
	}
	got := 0
	for _, s := range rec.Snapshots {
		got += len(s.Got)
	}
	if got == 0 {
		t.Fatal("the multi-subject reads answered nothing")
	}
	results, err := Check(dir, checker.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 3 {
		t.Errorf("%d checks, want 3", len(results))
	}
	for _, r := range results {
		if r.Name == replicas.NameDivergence {
			if r.Verdict != checker.Unknown || !strings.Contains(r.Reason, "nothing to compare") {
				t.Errorf("%s: %s: %s", r.Name, r.Verdict, r.Summary)
			}
			continue
		}
		if r.Verdict != checker.Valid {
			t.Errorf("%s: %s: %s", r.Name, r.Verdict, r.Summary)
		}
		t.Logf("%s: %s", r.Name, r.Summary)
	}

	// Delete the middle of the first batch stored: the stored cell is now
	// invalid, by its files alone.
	rb, _, _ := loadReadBack(dir)
	nc, err := i.conns.Connect(0, "batch-test")
	if err != nil {
		t.Fatal(err)
	}
	js, _ := jetstream.New(nc)
	st, _ := js.Stream(ctx, "BT")
	if err := st.DeleteMsg(ctx, rb.Msgs[1].Seq); err != nil {
		t.Fatal(err)
	}
	if err := i.Finish(ctx); err != nil {
		t.Fatal(err)
	}
	results, _ = Check(dir, checker.Options{})
	if results[0].Verdict != checker.Invalid || results[1].Verdict != checker.Invalid {
		t.Errorf("after a batch was cut: %s %s, %s %s", results[0].Name, results[0].Verdict, results[1].Name, results[1].Verdict)
	}
}
