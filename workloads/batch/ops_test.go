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
	ops := []history.Op{{Type: history.Get}, BatchOp(b, history.ErrWrongLastSeq), BatchOp(ok, ""), DeliverOp(d), DeliverOp(plain)}
	ops[3].Client, ops[4].Client = 5, 5
	for i := range ops[1:] {
		if err := ops[i+1].Validate(); err != nil {
			t.Fatalf("op %d: %v", i+1, err)
		}
	}
	batches, ds, err := FromHistory(ops)
	if err != nil {
		t.Fatal(err)
	}
	b.Op, ok.Op = 1, 2
	if len(batches) != 2 || batches[0] != b || batches[1] != ok {
		t.Errorf("batches %+v", batches)
	}
	d.Reader, d.Op, plain.Reader, plain.Op = "5", 3, "5", 4
	if len(ds) != 2 || ds[0] != d || ds[1] != plain {
		t.Errorf("deliveries %+v", ds)
	}
	ops[2].Data = []byte("{")
	if _, _, err := FromHistory(ops); err == nil {
		t.Error("a payload that does not decode was taken")
	}
}
