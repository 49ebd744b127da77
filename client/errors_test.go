package client

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/jetstream-chaos/jetstream-chaos/history"
)

func apiErr(code jetstream.ErrorCode, status int, desc string) *jetstream.APIError {
	return &jetstream.APIError{ErrorCode: code, Code: status, Description: desc}
}

var (
	wrongLast  = apiErr(jetstream.JSErrCodeStreamWrongLastSequence, 400, "wrong last sequence: 42")
	inflight   = apiErr(jetstream.JSErrCodeStreamWrongLastSequenceConstant, 400, "wrong last sequence")
	unavail    = apiErr(CodeUnavailable, 503, "JetStream system temporarily unavailable")
	inProcess  = apiErr(CodeMsgIDInProcess, 400, "duplicate message id is in process")
	noPeers    = apiErr(CodeNoPeers, 500, "no suitable peers for placement, peer offline")
	nameInUse  = apiErr(10058, 400, "stream name already in use with a different configuration")
	status503  = apiErr(10077, 503, "a refusal answered 503")
	wrappedAPI = fmt.Errorf("publish: %w", apiErr(10077, 400, "maximum messages exceeded"))
)

// Every code and sentinel kv-update's, queue's and catchup's classifiers
// and workloads.Transient handled, with the answers they gave (the
// differential test of the commit that made this package held them equal).
func TestClassify(t *testing.T) {
	cases := []struct {
		name      string
		err       error
		cause     Cause
		code      int
		kind      history.ErrKind
		seq       uint64
		mayApply  bool // MayHaveApplied
		transient bool
		inSetup   bool // transient in RetryTransient
	}{
		{"nil", nil, None, 0, "", 0, false, false, false},
		{"10071 as nats.go 1.55 wraps an update's", fmt.Errorf("%w: %w", wrongLast, jetstream.ErrKeyRevisionMismatch),
			Refused, 10071, history.ErrWrongLastSeq, 42, false, false, false},
		{"10071 of a create", fmt.Errorf("%w: %w", wrongLast, jetstream.ErrKeyExists), Refused, 10071, history.ErrKeyExists, 42, false, false, false},
		{"10071 bare", wrongLast, Refused, 10071, history.ErrKeyExists, 42, false, false, false},
		{"10071 without a sequence", apiErr(jetstream.JSErrCodeStreamWrongLastSequence, 400, "wrong last sequence"),
			Refused, 10071, history.ErrKeyExists, 0, false, false, false},
		{"10164", fmt.Errorf("%w: %w", inflight, jetstream.ErrKeyRevisionMismatch), Refused, 10164, history.ErrWrongLastSeqAny, 0, false, false, false},
		{"10008", unavail, Refused, 10008, history.ErrUnavailable, 0, false, true, true},
		{"10008 wrapped", fmt.Errorf("create stream: %w", unavail), Refused, 10008, history.ErrUnavailable, 0, false, true, true},
		{"10008 by its code alone", apiErr(CodeUnavailable, 500, "unavailable"), Refused, 10008, history.ErrUnavailable, 0, false, true, true},
		{"10158 in process", fmt.Errorf("publish: %w", inProcess), Refused, 10158, history.ErrMsgIDInProcess, 0, true, false, false},
		{"10005 no peers yet", noPeers, Refused, 10005, history.ErrOther, 0, false, false, true},
		{"another refusal", nameInUse, Refused, 10058, history.ErrOther, 0, false, false, false},
		{"another refusal wrapped", wrappedAPI, Refused, 10077, history.ErrOther, 0, false, false, false},
		{"a refusal with status 503", status503, Refused, 10077, history.ErrOther, 0, false, true, true},
		{"jetstream not enabled (503)", jetstream.ErrJetStreamNotEnabled, Refused, 10076, history.ErrOther, 0, false, true, true},
		{"stream not found", jetstream.ErrStreamNotFound, Refused, 10059, history.ErrOther, 0, false, false, false},
		{"message not found", jetstream.ErrMsgNotFound, Refused, 10037, history.ErrOther, 0, false, false, false},
		{"no responders", nats.ErrNoResponders, NoResponders, 0, history.ErrNoResponders, 0, false, true, true},
		{"no responders wrapped", fmt.Errorf("bind: %w", nats.ErrNoResponders), NoResponders, 0, history.ErrNoResponders, 0, false, true, true},
		{"no stream response", jetstream.ErrNoStreamResponse, NoResponders, 0, history.ErrNoResponders, 0, false, true, true},
		{"deadline", context.DeadlineExceeded, TimedOut, 0, history.ErrTimeout, 0, true, true, true},
		{"nats timeout", nats.ErrTimeout, TimedOut, 0, history.ErrTimeout, 0, true, true, true},
		{"connection closed", nats.ErrConnectionClosed, Disconnected, 0, history.ErrTimeout, 0, true, false, false},
		{"reconnecting", nats.ErrConnectionReconnecting, Disconnected, 0, history.ErrTimeout, 0, true, false, false},
		{"disconnected", fmt.Errorf("get: %w", nats.ErrDisconnected), Disconnected, 0, history.ErrTimeout, 0, true, false, false},
		{"reconnect buffer full", nats.ErrReconnectBufExceeded, Unplaced, 0, history.ErrOther, 0, true, false, false},
		{"canceled", context.Canceled, Unplaced, 0, history.ErrOther, 0, true, false, false},
		{"key not found (kv-update's reads decide)", jetstream.ErrKeyNotFound, Unplaced, 0, history.ErrOther, 0, true, false, false},
		{"unknown", errors.New("permissions violation"), Unplaced, 0, history.ErrOther, 0, true, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := Classify(c.err)
			if e.Cause != c.cause || e.Code != c.code || e.Kind != c.kind || e.Seq != c.seq {
				t.Errorf("Classify = %v %d %q seq %d, want %v %d %q seq %d", e.Cause, e.Code, e.Kind, e.Seq, c.cause, c.code, c.kind, c.seq)
			}
			if got := e.MayHaveApplied(); got != c.mayApply {
				t.Errorf("MayHaveApplied = %v, want %v", got, c.mayApply)
			}
			if got := Transient(c.err); got != c.transient {
				t.Errorf("Transient = %v, want %v", got, c.transient)
			}
			if c.err != nil {
				if got := transientInSetup(c.err); got != c.inSetup {
					t.Errorf("transient in setup = %v, want %v", got, c.inSetup)
				}
			}
		})
	}
}

// A write that may have been applied is indeterminate; a read that failed
// failed, whatever the error.
func TestOutcome(t *testing.T) {
	cases := []struct {
		err         error
		write, read history.Outcome
	}{
		{nil, history.OK, history.OK},
		{nats.ErrTimeout, history.Info, history.Fail},
		{nats.ErrConnectionClosed, history.Info, history.Fail},
		{errors.New("boom"), history.Info, history.Fail},
		{inProcess, history.Info, history.Fail},
		{wrongLast, history.Fail, history.Fail},
		{unavail, history.Fail, history.Fail},
		{nats.ErrNoResponders, history.Fail, history.Fail},
	}
	for _, c := range cases {
		e := Classify(c.err)
		if got := e.Outcome(true); got != c.write {
			t.Errorf("%v: a write's outcome %s, want %s", c.err, got, c.write)
		}
		if got := e.Outcome(false); got != c.read {
			t.Errorf("%v: a read's outcome %s, want %s", c.err, got, c.read)
		}
	}
}

func TestErrMsg(t *testing.T) {
	long := strings.Repeat("x", 300)
	cases := []struct{ err, want string }{
		{"one line", "one line"},
		{"first\nsecond", "first"},
		{long, long[:200]},
	}
	for _, c := range cases {
		if got := ErrMsg(errors.New(c.err)); got != c.want {
			t.Errorf("ErrMsg(%q) = %q, want %q", c.err, got, c.want)
		}
		if got := Classify(errors.New(c.err)).Msg; got != c.want {
			t.Errorf("Classify(%q).Msg = %q, want %q", c.err, got, c.want)
		}
	}
}

// The names catchup.json counts a failed read under.
func TestCauseString(t *testing.T) {
	want := map[Cause]string{None: "none", Refused: "refused", NoResponders: "no_responders", TimedOut: "timeout",
		Disconnected: "disconnected", Unplaced: "other", Cause(99): "cause(99)"}
	for c, w := range want {
		if got := c.String(); got != w {
			t.Errorf("Cause(%d).String() = %q, want %q", int(c), got, w)
		}
	}
}
