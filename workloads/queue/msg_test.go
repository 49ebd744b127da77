package queue

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestAppendMsgAgrees holds appendMsg to json.Marshal, every field set or
// not, with strings json writes as they are and strings it escapes.
func TestAppendMsgAgrees(t *testing.T) {
	strs := []string{"", "p0-17", "c0", "n3", "QUEUE", "a b", `q"`, `b\s`, "<x>", "&", "é", "\x01", "\xff"}
	rng := rand.New(rand.NewPCG(3, 4))
	pick := func(n int) string {
		if n%2 == 0 {
			return strs[rng.IntN(5)]
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
		m := Msg{Producer: pick(n), Consumer: pick(n), Stream: pick(n), Value: pick(n), Leader: pick(n),
			Seq: num(), Attempt: int(int64(num())), Delivered: num(), ConsumerSeq: num(), Got: -int(num() >> 1),
			Pending: num(), AckPending: num(), Redelivered: num(), LastSeq: num(), FirstSeq: num(), Msgs: num()}
		want, _ := json.Marshal(m)
		if got := appendMsg([]byte("x"), &m); !bytes.Equal(got, append([]byte("x"), want...)) {
			t.Fatalf("%+v:\n got %s\nwant x%s", m, got, want)
		}
		// json itself does not read back invalid UTF-8 as it was.
		if back := MsgOf(withMsg(Op{}.Op, m)); n%2 == 0 && !reflect.DeepEqual(back, m) {
			t.Fatalf("%+v read back as %+v", m, back)
		}
	}
}

// TestAppendMsgKnowsEveryField: appendMsg writes Msg's fields by hand, so
// a field added to Msg must be added there too, or ops would silently
// lose it.
func TestAppendMsgKnowsEveryField(t *testing.T) {
	known := []string{"Producer", "Consumer", "Stream", "Value", "Leader", "Seq", "Attempt", "Delivered", "ConsumerSeq",
		"Got", "Pending", "AckPending", "Redelivered", "LastSeq", "FirstSeq", "Msgs"}
	typ := reflect.TypeOf(Msg{})
	if typ.NumField() != len(known) {
		t.Fatalf("Msg has %d fields, appendMsg knows %d: add the new one to appendMsg and to this list", typ.NumField(), len(known))
	}
	for i, name := range known {
		if f := typ.Field(i); f.Name != name {
			t.Errorf("Msg's field %d is %s, appendMsg knows %s", i, f.Name, name)
		}
	}
}
