package queue

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

// recordErr (through client.Classify) records what classify and setErr
// recorded, for every sample, for an op that may apply and one that may
// not, except the kinds of 10071 and 10164: queue sends no expected last
// sequence, so neither is answered to it; were one, client names it
// (wrong_last_seq, key_exists, wrong_last_seq_inflight) where classify
// said other, with the same outcome and code.
func TestRecordErrMatchesClassify(t *testing.T) {
	for _, err := range diffSamples() {
		for _, mayApply := range []bool{true, false} {
			var want, got history.Op
			setErr(&want, classify(err, mayApply))
			recordErr(&got, err, mayApply)
			var apiErr *jetstream.APIError
			if errors.As(err, &apiErr) && (apiErr.ErrorCode == 10071 || apiErr.ErrorCode == 10164) && want.Err == history.ErrOther {
				want.Err = got.Err
				if !strings.HasPrefix(string(got.Err), "wrong_last_seq") && got.Err != history.ErrKeyExists {
					t.Errorf("%v: kind %q", err, got.Err)
				}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%v (may apply %v): recorded %+v, classify gave %+v", err, mayApply, got, want)
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
