package counter

import (
	"encoding/json"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// Adds and reads go through history.jsonl and back unchanged; a failed
// read is left out; a payload that does not decode is an error naming
// its op.
func TestOpsRoundTrip(t *testing.T) {
	a := Add{ID: "0.1", Counter: "C.c0", Delta: -3, Outcome: history.Info, Total: 7, Told: true, Attempts: 2, Client: 4, Invoke: 10, Complete: 20, Op: 0}
	r := Read{Counter: "C.c1", Value: 9, Direct: true, Node: "n2", Client: 5, Invoke: 30, Complete: 30, Op: 1}
	ao, ro := AddOp(a), ReadOp(r)
	ao.Invoke, ao.Complete, ro.Invoke, ro.Complete = a.Invoke, a.Complete, r.Invoke, r.Complete
	failed := ReadOp(r)
	failed.Outcome = history.Fail
	adds, reads, err := FromHistory([]history.Op{ao, ro, failed})
	if err != nil || len(adds) != 1 || len(reads) != 1 || adds[0] != a || reads[0] != r {
		t.Fatalf("%v: %+v %+v", err, adds, reads)
	}
	bad := ao
	bad.Data = json.RawMessage(`{"delta":"x"}`)
	if _, _, err := FromHistory([]history.Op{ro, bad}); err == nil {
		t.Error("a bad payload decoded")
	}
}

// A counter's body is {"val":"N"}; anything else is an error.
func TestCounterValue(t *testing.T) {
	if v, err := counterValue([]byte(`{"val":"-12"}`)); err != nil || v != -12 {
		t.Errorf("%d %v", v, err)
	}
	for _, b := range []string{``, `{"val":12}`, `{"val":"1e3"}`} {
		if _, err := counterValue([]byte(b)); err == nil {
			t.Errorf("%q read", b)
		}
	}
}
