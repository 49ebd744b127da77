package client

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// Cause is what an error says happened to a request.
type Cause int

// The causes, from what Classify checks first. An error that carries two of
// them (nats.go returns none such) takes the first.
const (
	None         Cause = iota // no error
	Refused                   // the server answered with a JetStream API error: the request did not happen
	NoResponders              // nothing took the request: it did not happen
	TimedOut                  // no answer in time: it may have happened
	Disconnected              // the connection closed or dropped with the request in flight: it may have happened
	Unplaced                  // an error none of the above: whether it happened is not known
)

var causeNames = [...]string{None: "none", Refused: "refused", NoResponders: "no_responders",
	TimedOut: "timeout", Disconnected: "disconnected", Unplaced: "other"}

// String is the cause's name (Error.Name adds a refusal's code).
func (c Cause) String() string {
	if c < 0 || int(c) >= len(causeNames) {
		return "cause(" + strconv.Itoa(int(c)) + ")"
	}
	return causeNames[c]
}

// Error is an error sorted by JetStream API error code and nats.go sentinel
// errors, never by its text.
type Error struct {
	Cause  Cause
	Code   int             // the JetStream API error code when Refused, else 0
	Status int             // the API error's HTTP-like status when Refused (503 unavailable), else 0
	Kind   history.ErrKind // what history.jsonl records
	Seq    uint64          // 10071 only: the subject's last sequence at the leader
	Msg    string          // the error's first line, at most 200 bytes (ErrMsg)
}

// JetStream API error codes nats.go has no constant for (nats-server
// server/errors.json).
const (
	// CodeUnavailable is JSClusterNotAvailErr, "JetStream system
	// temporarily unavailable" (503).
	CodeUnavailable = 10008
	// CodeNoPeers is JSClusterNoPeersErrF, "no suitable peers for
	// placement": the meta leader found no peer to place an asset on.
	CodeNoPeers = 10005
	// CodeMsgIDInProcess is JSStreamDuplicateMessageConflict, "duplicate
	// message id is in process": a copy with the same Nats-Msg-Id is being
	// stored (nats-server jetstream_batching.go, checkMsgId with no
	// sequence yet).
	CodeMsgIDInProcess = 10158
)

// Classify sorts err. nats.go 1.53+ wraps both 10071 and 10164 as
// ErrKeyRevisionMismatch (nats.go jetstream/kv.go), so the code decides,
// never the sentinel alone.
func Classify(err error) Error {
	if err == nil {
		return Error{}
	}
	e := Error{Cause: Unplaced, Kind: history.ErrOther, Msg: ErrMsg(err)}
	var apiErr *jetstream.APIError
	switch {
	case errors.As(err, &apiErr):
		e.Cause, e.Code, e.Status = Refused, int(apiErr.ErrorCode), apiErr.Code
		e.Kind = refusalKind(err, apiErr)
		if apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence {
			e.Seq = parseLastSeq(apiErr.Description)
		}
	case errors.Is(err, nats.ErrNoResponders), errors.Is(err, jetstream.ErrNoStreamResponse):
		// A publish nats.go retried while nobody answered ends in
		// ErrNoStreamResponse (nats.go jetstream/publish.go).
		e.Cause, e.Kind = NoResponders, history.ErrNoResponders
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, nats.ErrTimeout):
		e.Cause, e.Kind = TimedOut, history.ErrTimeout
	case errors.Is(err, nats.ErrConnectionClosed), errors.Is(err, nats.ErrConnectionReconnecting),
		errors.Is(err, nats.ErrDisconnected):
		// As indeterminate as a timeout, and recorded as one.
		e.Cause, e.Kind = Disconnected, history.ErrTimeout
	}
	return e
}

// refusalKind names an API error by its code.
func refusalKind(err error, apiErr *jetstream.APIError) history.ErrKind {
	switch apiErr.ErrorCode {
	case jetstream.JSErrCodeStreamWrongLastSequence:
		// nats.go matches any 10071 as ErrKeyExists; a create on a key with
		// a value is one that is not also a revision mismatch.
		if errors.Is(err, jetstream.ErrKeyExists) && !errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
			return history.ErrKeyExists
		}
		return history.ErrWrongLastSeq
	case jetstream.JSErrCodeStreamWrongLastSequenceConstant:
		return history.ErrWrongLastSeqAny
	case CodeUnavailable:
		return history.ErrUnavailable
	case CodeMsgIDInProcess:
		return history.ErrMsgIDInProcess
	}
	return history.ErrOther
}

// MayHaveApplied says whether a request that changes state (a write, a
// publish, an AckSync) may have done so although it ended with this error:
// no answer, an error nobody placed, or the server's 10158, whose copy in
// process may still be stored. A refusal otherwise, and no responders,
// mean it did not.
func (e Error) MayHaveApplied() bool {
	switch e.Cause {
	case TimedOut, Disconnected, Unplaced:
		return true
	case Refused:
		return e.Code == CodeMsgIDInProcess
	}
	return false
}

// Outcome is how history.jsonl records an op that ended with this error.
// mayApply says whether the op could change state: one that could not (a
// read) failed whatever the error, one that could is indeterminate
// (history.Info) when MayHaveApplied.
func (e Error) Outcome(mayApply bool) history.Outcome {
	switch {
	case e.Cause == None:
		return history.OK
	case mayApply && e.MayHaveApplied():
		return history.Info
	}
	return history.Fail
}

// Transient says whether a failed JetStream request may succeed if asked
// again: no answer in time, nobody listening yet, or JetStream temporarily
// unavailable (10008, or any refusal with status 503: nats.go answers an
// account info nobody took with ErrJetStreamNotEnabled, 503). A closed or
// dropped connection is not: asking again on it does not help.
func (e Error) Transient() bool {
	switch e.Cause {
	case TimedOut, NoResponders:
		return true
	case Refused:
		return e.Code == CodeUnavailable || e.Status == 503
	}
	return false
}

// Transient is Classify(err).Transient().
func Transient(err error) bool { return Classify(err).Transient() }

// ErrMsg is what history.jsonl keeps of an error's text: its first line,
// at most 200 bytes.
func ErrMsg(err error) string {
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		s = s[:200]
	}
	return s
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
