package kvupdate

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// The errors a kv-update op records, as history.jsonl has always held
// them (a write is an update, a read a get).
func TestRecordErr(t *testing.T) {
	wrong := &jetstream.APIError{Code: 400, ErrorCode: jetstream.JSErrCodeStreamWrongLastSequence, Description: "wrong last sequence: 42"}
	inflight := &jetstream.APIError{Code: 400, ErrorCode: jetstream.JSErrCodeStreamWrongLastSequenceConstant, Description: "wrong last sequence"}
	type recorded struct {
		Outcome history.Outcome
		Kind    history.ErrKind
		Code    int
		Seq     uint64
	}
	cases := []struct {
		name  string
		err   error
		write bool
		want  recorded
	}{
		{"nil", nil, true, recorded{Outcome: history.OK}},
		{"not found get", jetstream.ErrKeyNotFound, false, recorded{Outcome: history.OK, Kind: history.ErrNotFound}},
		{"not found wrapped", fmt.Errorf("get: %w", jetstream.ErrKeyNotFound), false, recorded{Outcome: history.OK, Kind: history.ErrNotFound}},
		{"10071 as nats.go 1.55 wraps it", fmt.Errorf("%w: %w", wrong, jetstream.ErrKeyRevisionMismatch), true,
			recorded{Outcome: history.Fail, Kind: history.ErrWrongLastSeq, Code: 10071, Seq: 42}},
		{"10164", fmt.Errorf("%w: %w", inflight, jetstream.ErrKeyRevisionMismatch), true,
			recorded{Outcome: history.Fail, Kind: history.ErrWrongLastSeqAny, Code: 10164}},
		{"create on existing key", fmt.Errorf("%w: key exists", wrong), true,
			recorded{Outcome: history.Fail, Kind: history.ErrKeyExists, Code: 10071, Seq: 42}},
		{"write timeout is indeterminate", context.DeadlineExceeded, true, recorded{Outcome: history.Info, Kind: history.ErrTimeout}},
		{"write on a dropped connection is indeterminate", nats.ErrConnectionReconnecting, true, recorded{Outcome: history.Info, Kind: history.ErrTimeout}},
		{"read timeout is a failure", nats.ErrTimeout, false, recorded{Outcome: history.Fail, Kind: history.ErrTimeout}},
		{"10008 unavailable", &jetstream.APIError{Code: 503, ErrorCode: 10008, Description: "JetStream system temporarily unavailable"}, false,
			recorded{Outcome: history.Fail, Kind: history.ErrUnavailable, Code: 10008}},
		{"no responders", nats.ErrNoResponders, true, recorded{Outcome: history.Fail, Kind: history.ErrNoResponders}},
		{"unknown write error stays open", errors.New("boom"), true, recorded{Outcome: history.Info, Kind: history.ErrOther}},
		{"unknown read error fails", errors.New("boom"), false, recorded{Outcome: history.Fail, Kind: history.ErrOther}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			op := history.Op{Type: history.Get}
			if c.write {
				op.Type = history.Update
			}
			recordErr(&op, c.err)
			if got := (recorded{op.Outcome, op.Err, op.ErrCode, op.ErrSeq}); got != c.want {
				t.Fatalf("recordErr(%v) = %+v, want %+v", c.err, got, c.want)
			}
			if (op.Err == history.ErrNotFound || c.err == nil) != (op.ErrMsg == "") {
				t.Fatalf("recordErr(%v) kept message %q", c.err, op.ErrMsg)
			}
		})
	}
}
