package batch

import (
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// What the ops record is what the checks read back, with the op indexes.
func TestOpsRoundTrip(t *testing.T) {
	b := Batch{ID: "2.7", Kind: KindWrongLastSeq, Size: 4, Outcome: history.Fail}
	ok := Batch{ID: "2.8", Kind: KindCommit, Size: 4, Outcome: history.OK, AckSeq: 12}
	d := Delivery{Seq: 9, Batch: "2.8", Index: 1}
	plain := Delivery{Seq: 10}
	snap := Snapshot{UpTo: 12, Subjects: []string{"x", "y"}, Got: []Stored{{Seq: 12, Subject: "x", Batch: "2.8", Index: 4}}}
	unanswered := SnapOp(Snapshot{UpTo: 3})
	unanswered.Outcome = history.Fail
	ops := []history.Op{{Type: history.Get}, BatchOp(b, history.ErrWrongLastSeq), BatchOp(ok, ""), DeliverOp(d), DeliverOp(plain), SnapOp(snap), unanswered}
	ops[3].Client, ops[4].Client, ops[5].Client = 5, 5, 6
	for i := range ops[1:] {
		if err := ops[i+1].Validate(); err != nil {
			t.Fatalf("op %d: %v", i+1, err)
		}
	}
	rec, err := FromHistory(ops)
	if err != nil {
		t.Fatal(err)
	}
	batches, ds := rec.Batches, rec.Deliveries
	b.Op, ok.Op = 1, 2
	if len(batches) != 2 || batches[0] != b || batches[1] != ok {
		t.Errorf("batches %+v", batches)
	}
	d.Reader, d.Op, plain.Reader, plain.Op = "5", 3, "5", 4
	if len(ds) != 2 || ds[0] != d || ds[1] != plain {
		t.Errorf("deliveries %+v", ds)
	}
	snap.Reader, snap.Op = "6", 5
	if len(rec.Snapshots) != 1 || rec.Snapshots[0].UpTo != 12 || rec.Snapshots[0].Got[0] != snap.Got[0] || rec.Snapshots[0].Reader != "6" {
		t.Errorf("snapshots %+v (the unanswered read left out)", rec.Snapshots)
	}
	ops[2].Data = []byte("{")
	if _, err := FromHistory(ops); err == nil {
		t.Error("a payload that does not decode was taken")
	}
}
