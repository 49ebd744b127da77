package counter

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/checker/replicas"
	"github.com/jetstream-chaos/jetstream-chaos/client/clienttest"
	"github.com/jetstream-chaos/jetstream-chaos/history"
	"github.com/jetstream-chaos/jetstream-chaos/workloads"
)

// A cell on an in-process server, with no fault, positive adds and both
// read paths: the adds and reads are recorded, Finish stores the counters
// and the one server's copy, and Check on the stored files finds all three
// checks valid and replica-divergence unknown (one copy: nothing to
// compare; the Docker test compares three). Then an add
// nobody recorded makes the stored cell's total invalid, by its files
// alone. A cell of mixed signs is judged without counter-reads.
func TestInstanceOnAServer(t *testing.T) {
	nodes, _ := clienttest.Server(t, 1)
	for _, mixed := range []bool{false, true} {
		dir := t.TempDir()
		hist, err := history.NewRecorder(filepath.Join(dir, "history.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		env := &workloads.Env{Cluster: clienttest.Cluster{N: nodes}, Dir: dir, History: hist, Phase: func(string) {}, Logf: t.Logf}
		o := Options{Stream: "CT", Counters: 3, Clients: 1, Replicas: 1, MaxDelta: 5, Mixed: mixed, Retries: 2,
			Timeout: time.Second, DirectGet: true, Seed: 1}
		ctx := context.Background()
		i, err := setup(ctx, o, env)
		if err != nil {
			t.Fatal(err)
		}
		rctx, cancel := context.WithTimeout(ctx, time.Second)
		if err := i.Run(rctx, nil); err != nil {
			t.Fatal(err)
		}
		cancel()
		if err := i.Finish(ctx); err != nil {
			t.Fatal(err)
		}
		if err := hist.Close(); err != nil {
			t.Fatal(err)
		}
		ops, _ := history.ReadOps(filepath.Join(dir, "history.jsonl"))
		adds, reads, err := FromHistory(ops)
		if err != nil {
			t.Fatal(err)
		}
		direct, told := 0, 0
		for _, r := range reads {
			if r.Direct {
				direct++
			}
		}
		for _, a := range adds {
			if a.Told {
				told++
			}
		}
		if len(adds) < 50 || told < len(adds)/2 || len(reads) < 20 || direct == 0 || direct == len(reads) {
			t.Fatalf("mixed %v: %d adds (%d with a total), %d reads (%d direct)", mixed, len(adds), told, len(reads), direct)
		}
		results, err := Check(dir, checker.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if want := map[bool]int{false: 4, true: 3}[mixed]; len(results) != want {
			t.Errorf("mixed %v: %d checks, want %d", mixed, len(results), want)
		}
		for _, r := range results {
			if r.Name == replicas.NameDivergence {
				if r.Verdict != checker.Unknown || !strings.Contains(r.Reason, "nothing to compare") {
					t.Errorf("mixed %v: %s: %s: %s", mixed, r.Name, r.Verdict, r.Summary)
				}
				continue
			}
			if r.Verdict != checker.Valid {
				t.Errorf("mixed %v: %s: %s: %s", mixed, r.Name, r.Verdict, r.Summary)
			}
			t.Logf("mixed %v: %s: %s", mixed, r.Name, r.Summary)
		}

		// An add the history never saw: the total is off by it.
		m := nats.NewMsg("CT.c0")
		m.Header.Set(incrHeader, "1000")
		js, _ := jetstream.New(i.admin)
		if _, err := js.PublishMsg(ctx, m); err != nil {
			t.Fatal(err)
		}
		if err := i.Finish(ctx); err != nil {
			t.Fatal(err)
		}
		results, _ = Check(dir, checker.Options{})
		if results[0].Name != CheckTotal || results[0].Verdict != checker.Invalid || results[0].Counts["off"] != 1 {
			t.Errorf("mixed %v: after an unrecorded add: %s %s %s", mixed, results[0].Name, results[0].Verdict, results[0].Summary)
		}
		if err := js.DeleteStream(ctx, "CT"); err != nil {
			t.Fatal(err)
		}
		i.Close()
	}
}
