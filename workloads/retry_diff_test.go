package workloads

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/jetstream-chaos/jetstream-chaos/client"
)

// client.Transient answers as Transient, and client.RetryTransient asks
// again exactly when RetryTransient did, for every sample, except
// ErrNoStreamResponse: nats.go returns it only from a publish nobody took
// (jetstream/publish.go), which no setup request is, and client counts it
// transient as it counts no responders.
func TestClientTransientMatches(t *testing.T) {
	for _, err := range diffSamples() {
		if err == nil {
			continue
		}
		want := Transient(err)
		if errors.Is(err, jetstream.ErrNoStreamResponse) {
			want = true
		}
		if got := client.Transient(err); got != want {
			t.Errorf("%v: client.Transient %v, Transient %v", err, got, want)
		}
		wantCalls := 1
		if want || noPeersYet(err) {
			wantCalls = 2
		}
		t.Run(fmt.Sprint(err), func(t *testing.T) {
			t.Parallel() // each try again waits 250 ms
			calls := 0
			_ = client.RetryTransient(context.Background(), time.Minute, func(context.Context) error {
				if calls++; calls == 1 {
					return err
				}
				return nil
			})
			if calls != wantCalls {
				t.Errorf("%v: client.RetryTransient asked %d times, RetryTransient would %d", err, calls, wantCalls)
			}
		})
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
