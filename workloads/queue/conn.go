package queue

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/jetstream-chaos/jetstream-chaos/client"
	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// connect dials node first and the others as fallbacks. Discovered servers
// are ignored: they are container addresses the host must not dial.
func connect(nodes []cluster.Node, first int, name string) (*nats.Conn, error) {
	urls := make([]string, 0, len(nodes))
	for i := range nodes {
		urls = append(urls, nodes[(first+i)%len(nodes)].ClientURL)
	}
	return nats.Connect(strings.Join(urls, ","),
		nats.Name(name),
		nats.DontRandomize(),
		nats.IgnoreDiscoveredServers(),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(250*time.Millisecond),
		nats.Timeout(2*time.Second),
	)
}

// classified is an error sorted into what the checkers reason about.
type classified struct {
	Outcome history.Outcome
	Kind    history.ErrKind
	Code    int
	Msg     string
}

// classify sorts an error by JetStream API error code, never by text. For
// an op that may change state (a publish, an AckSync), a timeout or an
// error we cannot place is indeterminate: it may have been applied.
func classify(err error, mayApply bool) classified {
	if err == nil {
		return classified{Outcome: history.OK}
	}
	c := classified{Outcome: history.Fail, Kind: history.ErrOther, Msg: oneLine(err.Error())}
	var apiErr *jetstream.APIError
	switch {
	case errors.As(err, &apiErr):
		// The server answered: it did not apply the request, except that a
		// publish whose Nats-Msg-Id is "in process" has a copy in flight
		// that may still be stored (nats-server jetstream_batching.go,
		// checkMsgId with no sequence yet).
		c.Code = int(apiErr.ErrorCode)
		switch apiErr.ErrorCode {
		case errCodeUnavailable:
			c.Kind = history.ErrUnavailable
		case errCodeMsgIDInProcess:
			c.Kind = ErrInProcess
			if mayApply {
				c.Outcome = history.Info
			}
		}
	case errors.Is(err, nats.ErrNoResponders), errors.Is(err, jetstream.ErrNoStreamResponse):
		// Nothing took the request, so it was not applied.
		c.Kind = history.ErrNoResponders
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, nats.ErrTimeout),
		errors.Is(err, nats.ErrConnectionClosed), errors.Is(err, nats.ErrConnectionReconnecting),
		errors.Is(err, nats.ErrDisconnected):
		c.Kind = history.ErrTimeout
		if mayApply {
			c.Outcome = history.Info
		}
	default:
		if mayApply {
			c.Outcome = history.Info
		}
	}
	return c
}

// errCodeMsgIDInProcess is JSStreamDuplicateMessageConflict: "duplicate
// message id is in process".
const errCodeMsgIDInProcess jetstream.ErrorCode = 10158

// ErrInProcess is the kind of a publish answered 10158: a copy with its
// Nats-Msg-Id is being stored.
const ErrInProcess history.ErrKind = "msg_id_in_process"

// errCodeUnavailable is the server's JSClusterNotAvailErr ("JetStream
// system temporarily unavailable", 503); nats.go has no constant for it.
const errCodeUnavailable jetstream.ErrorCode = 10008

func oneLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}

// setErr copies a classified error into op.
func setErr(op *history.Op, c classified) {
	op.Outcome, op.Err, op.ErrCode, op.ErrMsg = c.Outcome, c.Kind, c.Code, c.Msg
}

// recordErr records how op ended with err, as client.Classify sorts it.
// mayApply says whether the op could change state (a publish, an AckSync).
func recordErr(op *history.Op, err error, mayApply bool) {
	e := client.Classify(err)
	op.Outcome, op.Err, op.ErrCode, op.ErrMsg = e.Outcome(mayApply), e.Kind, e.Code, e.Msg
}
