package kvupdate

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// recordErr (through client.Classify) records what classify recorded, for
// every sample, as a write and as a read, except 10158: kv-update sends no
// Nats-Msg-Id (nor does nats.go's kv.Put, Update, Create, Delete or
// Purge), so no kv-update op is answered 10158; were one, its copy in
// process may be stored, and client records it msg_id_in_process,
// indeterminate for a write, as queue always did.
func TestRecordErrMatchesClassify(t *testing.T) {
	for _, err := range diffSamples() {
		for _, typ := range []history.OpType{history.Update, history.Get} {
			old := classify(err, typ != history.Get)
			want := history.Op{Type: typ, Outcome: old.Outcome, Err: old.Kind, ErrCode: old.Code, ErrSeq: old.Seq, ErrMsg: old.Msg}
			got := history.Op{Type: typ}
			recordErr(&got, err)
			var apiErr *jetstream.APIError
			if errors.As(err, &apiErr) && apiErr.ErrorCode == 10158 {
				want.Err = history.ErrMsgIDInProcess
				if typ != history.Get {
					want.Outcome = history.Info
				}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%v as %s: recorded %+v, classify gave %+v", err, typ, got, want)
			}
		}
	}
}

// diffSamples is every JetStream API error code and nats.go sentinel the
// old classifiers (kv-update's, queue's, catchup's, workloads.Transient)
// handled, and some they did not, bare and wrapped.
func diffSamples() []error {
	var out []error
	codes := []jetstream.ErrorCode{10005, 10008, 10037, 10058, 10059, 10071, 10076, 10077, 10158, 10164}
	for _, c := range codes {
		for _, st := range []int{400, 500, 503} {
			for _, d := range []string{"wrong last sequence: 42", "wrong last sequence", ""} {
				a := &jetstream.APIError{ErrorCode: c, Code: st, Description: d}
				out = append(out, a, fmt.Errorf("op: %w", a), fmt.Errorf("%w: %w", a, jetstream.ErrKeyRevisionMismatch),
					fmt.Errorf("%w: %w", a, jetstream.ErrKeyExists))
			}
		}
	}
	sentinels := []error{jetstream.ErrKeyNotFound, jetstream.ErrKeyExists, jetstream.ErrKeyRevisionMismatch,
		jetstream.ErrMsgNotFound, jetstream.ErrStreamNotFound, jetstream.ErrJetStreamNotEnabled,
		jetstream.ErrJetStreamNotEnabledForAccount, jetstream.ErrNoStreamResponse, nats.ErrNoResponders,
		context.DeadlineExceeded, context.Canceled, nats.ErrTimeout, nats.ErrConnectionClosed,
		nats.ErrConnectionReconnecting, nats.ErrDisconnected, nats.ErrReconnectBufExceeded, nats.ErrBadSubscription,
		nats.ErrPermissionViolation, nats.ErrAuthorization, errors.New("boom\nsecond line"), errors.New(strings.Repeat("x", 300))}
	out = append(out, nil)
	for _, s := range sentinels {
		out = append(out, s, fmt.Errorf("op: %w", s))
	}
	return out
}
