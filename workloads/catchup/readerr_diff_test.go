package catchup

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// readErrName (through client.Classify) names every failed get as
// readErrKind did. The reader counts only errors (a nil one is a get
// answered).
func TestReadErrNameMatchesReadErrKind(t *testing.T) {
	for _, err := range diffSamples() {
		if err == nil {
			continue
		}
		if got, want := readErrName(err), readErrKind(err); got != want {
			t.Errorf("%v: %q, readErrKind said %q", err, got, want)
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
