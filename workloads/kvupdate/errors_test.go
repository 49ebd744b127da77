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

func TestClassify(t *testing.T) {
	wrong := &jetstream.APIError{Code: 400, ErrorCode: jetstream.JSErrCodeStreamWrongLastSequence, Description: "wrong last sequence: 42"}
	inflight := &jetstream.APIError{Code: 400, ErrorCode: jetstream.JSErrCodeStreamWrongLastSequenceConstant, Description: "wrong last sequence"}
	cases := []struct {
		name  string
		err   error
		write bool
		want  classified
	}{
		{"nil", nil, true, classified{Outcome: history.OK}},
		{"not found get", jetstream.ErrKeyNotFound, false, classified{Outcome: history.OK, Kind: history.ErrNotFound}},
		{"10071 as nats.go 1.55 wraps it", fmt.Errorf("%w: %w", wrong, jetstream.ErrKeyRevisionMismatch), true,
			classified{Outcome: history.Fail, Kind: history.ErrWrongLastSeq, Code: 10071, Seq: 42}},
		{"10164", fmt.Errorf("%w: %w", inflight, jetstream.ErrKeyRevisionMismatch), true,
			classified{Outcome: history.Fail, Kind: history.ErrWrongLastSeqAny, Code: 10164}},
		{"create on existing key", fmt.Errorf("%w: key exists", wrong), true,
			classified{Outcome: history.Fail, Kind: history.ErrKeyExists, Code: 10071, Seq: 42}},
		{"write timeout is indeterminate", context.DeadlineExceeded, true, classified{Outcome: history.Info, Kind: history.ErrTimeout}},
		{"read timeout is a failure", nats.ErrTimeout, false, classified{Outcome: history.Fail, Kind: history.ErrTimeout}},
		{"10008 unavailable", &jetstream.APIError{Code: 503, ErrorCode: 10008, Description: "JetStream system temporarily unavailable"}, false,
			classified{Outcome: history.Fail, Kind: history.ErrUnavailable, Code: 10008}},
		{"no responders", nats.ErrNoResponders, true, classified{Outcome: history.Fail, Kind: history.ErrNoResponders}},
		{"unknown write error stays open", errors.New("boom"), true, classified{Outcome: history.Info, Kind: history.ErrOther}},
		{"unknown read error fails", errors.New("boom"), false, classified{Outcome: history.Fail, Kind: history.ErrOther}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := classify(c.err, c.write)
			got.Msg = ""
			if got != c.want {
				t.Fatalf("classify(%v) = %+v, want %+v", c.err, got, c.want)
			}
		})
	}
}
