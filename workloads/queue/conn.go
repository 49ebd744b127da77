package queue

import (
	"context"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/jetstream-chaos/jetstream-chaos/client"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// connect dials the nodes from first on as name, asking again for up to
// 30 s while no node takes the connection (client.ConnectWithin): a fault
// can come before a client starts.
func (i *instance) connect(ctx context.Context, first int, name string) (*nats.Conn, error) {
	return client.ConnectWithin(ctx, 30*time.Second, i.nodes, client.Order(first, len(i.nodes)), name)
}

// recordErr records how op ended with err, as client.Classify sorts it.
// mayApply says whether the op could change state (a publish, an AckSync):
// then a timeout, an error nobody placed or 10158 (a copy with the
// publish's Nats-Msg-Id in process, which may still be stored) is
// indeterminate.
func recordErr(op *history.Op, err error, mayApply bool) {
	e := client.Classify(err)
	op.Outcome, op.Err, op.ErrCode, op.ErrMsg = e.Outcome(mayApply), e.Kind, e.Code, e.Msg
}
