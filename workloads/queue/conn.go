package queue

import (
	"github.com/jetstream-chaos/jetstream-chaos/client"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// recordErr records how op ended with err, as client.Classify sorts it.
// mayApply says whether the op could change state (a publish, an AckSync):
// then a timeout, an error nobody placed or 10158 (a copy with the
// publish's Nats-Msg-Id in process, which may still be stored) is
// indeterminate.
func recordErr(op *history.Op, err error, mayApply bool) {
	e := client.Classify(err)
	op.Outcome, op.Err, op.ErrCode, op.ErrMsg = e.Outcome(mayApply), e.Kind, e.Code, e.Msg
}
