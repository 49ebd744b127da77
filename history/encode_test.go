package history

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestAppendOpAgrees holds appendOp to json.Marshal on ops with every
// field set or not, strings json escapes, and Data plain, spaced, escaped
// for HTML or invalid.
func TestAppendOpAgrees(t *testing.T) {
	strs := []string{"", "p0-17", "n1", "c0", "a b", `q"uote`, `back\slash`, "<tag>", "a&b", "tab\t", "é", "\u2028", "\xff", "~"}
	datas := []json.RawMessage{nil, {}, json.RawMessage(`{"producer":"p0","value":"p0-1","seq":7}`),
		json.RawMessage(`{"a": 1}`), json.RawMessage(`{"a":"<"}`), json.RawMessage(`{"a":`), json.RawMessage(`{"a":"\u00e9"}`),
		json.RawMessage(`null`), json.RawMessage(`{"a":"x\"y"}`), json.RawMessage("{\"a\":\"\xc3\xa9\"}")}
	verified := true
	rng := rand.New(rand.NewPCG(1, 2))
	// Half the ops draw only from the strings written as they are, so
	// that the fast path, not just the fallback, is compared.
	plain := 0
	pick := func() string {
		if plain%2 == 0 {
			return strs[rng.IntN(4)]
		}
		return strs[rng.IntN(len(strs))]
	}
	num := func() uint64 {
		if rng.IntN(2) == 0 {
			return 0
		}
		return rng.Uint64() >> rng.IntN(64)
	}
	for n := range 20000 {
		plain = n
		op := Op{Client: rng.IntN(6000) - 1, Node: pick(), Type: OpType(pick()), Key: pick(), Value: pick(),
			ExpectedRev: num(), Rev: num(), Outcome: Outcome(pick()), Err: ErrKind(pick()), ErrCode: int(num() % 20000),
			ErrSeq: num(), ErrMsg: pick(), Invoke: int64(num() >> 1), Complete: -int64(num() >> 1), Data: datas[rng.IntN(len(datas))]}
		switch n % 20 {
		case 1:
			op.Fault = pick()
		case 2:
			op.Targets = []string{pick()}
		case 3:
			op.Verified = &verified
		case 4:
			op.Detail = pick()
		}
		want, werr := json.Marshal(op)
		got, gerr := appendOp([]byte("prefix"), &op)
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("%+v: error %v, json.Marshal's %v", op, gerr, werr)
		}
		if werr == nil && !bytes.Equal(got, append([]byte("prefix"), want...)) {
			t.Fatalf("%+v:\n got %s\nwant prefix%s", op, got, want)
		}
	}
}

// BenchmarkRecorderAdd is the cost of recording one queue-like op.
func BenchmarkRecorderAdd(b *testing.B) {
	r, err := NewRecorder(b.TempDir() + "/history.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	op := Op{Client: 1003, Node: "n2", Type: "ack-sync", Outcome: OK, Invoke: 123456789, Complete: 123999999,
		Data: json.RawMessage(`{"consumer":"c0","value":"p1-12345","seq":37012,"delivered":1}`)}
	b.ReportAllocs()
	for b.Loop() {
		r.Add(op)
	}
}

// TestAppendOpKnowsEveryField: appendOp writes Op's fields by hand, so a
// field added to Op must be added there too (or to its fallback's
// condition), or history.jsonl would silently lose it.
func TestAppendOpKnowsEveryField(t *testing.T) {
	known := []string{"Client", "Node", "Type", "Key", "Value", "ExpectedRev", "Rev", "Outcome", "Err", "ErrCode",
		"ErrSeq", "ErrMsg", "Invoke", "Complete", "Data", "Fault", "Targets", "Verified", "Detail"}
	typ := reflect.TypeOf(Op{})
	if typ.NumField() != len(known) {
		t.Fatalf("Op has %d fields, appendOp knows %d: add the new one to appendOp and to this list", typ.NumField(), len(known))
	}
	for i, name := range known {
		if f := typ.Field(i); f.Name != name {
			t.Errorf("Op's field %d is %s, appendOp knows %s", i, f.Name, name)
		}
	}
}
