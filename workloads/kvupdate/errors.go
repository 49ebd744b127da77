package kvupdate

import (
	"errors"

	"github.com/nats-io/nats.go/jetstream"

	jsclient "github.com/jetstream-chaos/jetstream-chaos/client" // kv-update has its own type client
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// recordErr records how op ended with err, as jsclient.Classify sorts it,
// except that a get of a missing key is a normal answer (not_found, OK):
// kv-update's reads are the only ones that ask for a key.
func recordErr(op *history.Op, err error) {
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		op.Outcome, op.Err, op.ErrCode, op.ErrSeq, op.ErrMsg = history.OK, history.ErrNotFound, 0, 0, ""
		return
	}
	e := jsclient.Classify(err)
	op.Outcome, op.Err, op.ErrCode, op.ErrSeq, op.ErrMsg = e.Outcome(op.IsWrite()), e.Kind, e.Code, e.Seq, e.Msg
}
