package queue

import (
	"context"
	"errors"
	"io"
	"net"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/jetstream-chaos/jetstream-chaos/client"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// connectWithin is how long a client of the run keeps dialling.
const connectWithin = 30 * time.Second

// connect dials the nodes from first on as name, again while no node takes
// the connection (dialTransient): a fault can come before a client
// starts, and a killed node's published port may accept and then close
// (EOF) rather than refuse. A refusal (credentials, TLS) returns at once.
// Once connected, a fault never ends a client (client.Connect reconnects
// forever).
func (i *instance) connect(ctx context.Context, first int, name string) (*nats.Conn, error) {
	deadline := time.Now().Add(connectWithin)
	for {
		nc, err := client.Connect(i.nodes, client.Order(first, len(i.nodes)), name)
		if err == nil || !dialTransient(err) || ctx.Err() != nil || time.Now().After(deadline) {
			return nc, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// dialTransient says whether a failed dial may pass: no node answered,
// or one closed the connection or timed out before its INFO.
func dialTransient(err error) bool {
	var ne net.Error
	return errors.Is(err, io.EOF) || errors.Is(err, nats.ErrNoServers) || errors.Is(err, nats.ErrTimeout) ||
		(errors.As(err, &ne) && ne.Timeout())
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
