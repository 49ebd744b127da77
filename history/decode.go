package history

import (
	"encoding/json"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
)

// decodeOp parses one line of history.jsonl. It is the hot loop of every
// check (an hour-long run records ~12 M ops), so it first tries the JSON v2
// decoder (github.com/go-json-experiment/json, what encoding/json/v2 is
// built from; 3-4x faster here, BenchmarkReadOps) in its strict form:
// member names exactly as the Recorder writes them, no unknown or repeated
// member, valid UTF-8. Whatever it refuses, encoding/json parses as
// before, with its errors, which name the field and the type. So the
// result is always encoding/json's; TestDecodeAgrees and FuzzDecodeAgrees
// hold it to that. (goccy/go-json, tried first, parsed {"x":[""""]} and
// missed a "Complete" member that encoding/json matches.)
func decodeOp(line []byte, in *interner) (Op, error) {
	var op Op
	if err := decodeLine(line, &op); err != nil {
		return Op{}, err
	}
	in.op(&op)
	return op, nil
}

// DecodeEntry parses one stream entry line as ReadStream does, for files
// of entries that belong to a workload (it validates nothing).
func DecodeEntry(line []byte) (Entry, error) {
	var e Entry
	err := decodeLine(line, &e)
	return e, err
}

// decodeLine parses one JSON line into v as decodeOp describes.
func decodeLine[T any](line []byte, v *T) error {
	if jsonv2.Unmarshal(line, v, jsonv2.RejectUnknownMembers(true)) == nil {
		return nil
	}
	var zero T
	*v = zero
	return json.Unmarshal(line, v)
}

// interner gives each distinct string of the fields with few values
// (types, outcomes, errors, nodes, keys, faults) one shared copy; both
// decoders allocate every string anew, so the others (values, error
// messages, details) are left as they are.
type interner struct{ m map[string]string }

func newInterner() *interner { return &interner{m: map[string]string{}} }

func (in *interner) str(s string) string {
	if s == "" {
		return ""
	}
	if t, ok := in.m[s]; ok {
		return t
	}
	t := strings.Clone(s)
	in.m[t] = t
	return t
}

func (in *interner) op(o *Op) {
	o.Type, o.Outcome, o.Err = OpType(in.str(string(o.Type))), Outcome(in.str(string(o.Outcome))), ErrKind(in.str(string(o.Err)))
	o.Node, o.Key, o.Fault = in.str(o.Node), in.str(o.Key), in.str(o.Fault)
	for i, t := range o.Targets {
		o.Targets[i] = in.str(t)
	}
}
