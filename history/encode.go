package history

import (
	"encoding/json"

	"github.com/jetstream-chaos/jetstream-chaos/internal/jsonfast"
)

// appendOp appends op's line of history.jsonl (without the newline),
// exactly as json.Marshal(op) writes it: the Recorder's hot path, where
// json.Marshal's reflection was most of a queue run's own CPU. A fault
// record, or an op with a string json.Marshal escapes or Data it would
// compact or escape, goes through json.Marshal; TestAppendOpAgrees holds
// the two equal.
func appendOp(dst []byte, op *Op) ([]byte, error) {
	if op.Fault == "" && op.Targets == nil && op.Verified == nil && op.Detail == "" {
		o := jsonfast.Begin(dst)
		o.Int("client", int64(op.Client))
		o.StrOmit("node", op.Node)
		o.Str("type", string(op.Type))
		o.StrOmit("key", op.Key)
		o.StrOmit("value", op.Value)
		o.UintOmit("expected_rev", op.ExpectedRev)
		o.UintOmit("rev", op.Rev)
		o.Str("outcome", string(op.Outcome))
		o.StrOmit("err", string(op.Err))
		o.IntOmit("err_code", int64(op.ErrCode))
		o.UintOmit("err_seq", op.ErrSeq)
		o.StrOmit("err_msg", op.ErrMsg)
		o.Int("invoke", op.Invoke)
		o.Int("complete", op.Complete)
		if len(op.Data) > 0 {
			o.Raw("data", op.Data)
		}
		if b, ok := o.End(); ok {
			return b, nil
		}
	}
	b, err := json.Marshal(*op) // a copy: op itself stays off the heap
	return append(dst, b...), err
}
