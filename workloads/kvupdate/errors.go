package kvupdate

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	jsclient "github.com/jetstream-chaos/jetstream-chaos/client" // kv-update has its own type client
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// classified is an error sorted into the kinds the checkers reason about.
type classified struct {
	Outcome history.Outcome
	Kind    history.ErrKind
	Code    int
	Seq     uint64 // 10071 only: the subject's last sequence at the leader
	Msg     string
}

// classify sorts an error by JetStream API error code, never by text alone,
// because nats.go 1.53+ wraps both 10071 and 10164 as ErrKeyRevisionMismatch
// (nats.go jetstream/kv.go). write says whether the op could have
// changed state: a write that timed out may still have been applied.
func classify(err error, write bool) classified {
	if err == nil {
		return classified{Outcome: history.OK}
	}
	c := classified{Outcome: history.Fail, Kind: history.ErrOther, Msg: oneLine(err.Error())}
	var apiErr *jetstream.APIError
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound):
		// A get of a missing key is a normal answer, not a failure.
		c.Outcome, c.Kind = history.OK, history.ErrNotFound
		c.Msg = ""
	case errors.As(err, &apiErr):
		c.Code = int(apiErr.ErrorCode)
		switch apiErr.ErrorCode {
		case jetstream.JSErrCodeStreamWrongLastSequence:
			c.Kind = history.ErrWrongLastSeq
			c.Seq = parseLastSeq(apiErr.Description)
			if errors.Is(err, jetstream.ErrKeyExists) && !errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
				c.Kind = history.ErrKeyExists
			}
		case jetstream.JSErrCodeStreamWrongLastSequenceConstant:
			c.Kind = history.ErrWrongLastSeqAny
		case errCodeUnavailable:
			// The server answered that it cannot serve the request now.
			c.Kind = history.ErrUnavailable
		}
	case errors.Is(err, nats.ErrNoResponders), errors.Is(err, jetstream.ErrNoStreamResponse):
		// Nothing took the request, so a write was not applied.
		c.Kind = history.ErrNoResponders
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, nats.ErrTimeout),
		errors.Is(err, nats.ErrConnectionClosed), errors.Is(err, nats.ErrConnectionReconnecting),
		errors.Is(err, nats.ErrDisconnected):
		c.Kind = history.ErrTimeout
		if write {
			c.Outcome = history.Info
		}
	default:
		if write {
			// An error we cannot place may hide an applied write: be safe.
			c.Outcome = history.Info
		}
	}
	return c
}

// parseLastSeq reads N from "wrong last sequence: N".
func parseLastSeq(desc string) uint64 {
	i := strings.LastIndexByte(desc, ':')
	if i < 0 {
		return 0
	}
	n, _ := strconv.ParseUint(strings.TrimSpace(desc[i+1:]), 10, 64)
	return n
}

func oneLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}

// errCodeUnavailable is the server's JSClusterNotAvailErr ("JetStream system
// temporarily unavailable", 503); nats.go has no constant for it.
const errCodeUnavailable jetstream.ErrorCode = 10008

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
