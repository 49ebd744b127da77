package catchup

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// The names catchup.json's read errors have always been counted under; a
// disconnection is counted apart from a timeout.
func TestReadErrName(t *testing.T) {
	cases := []struct {
		err  error
		want string
	}{
		{context.DeadlineExceeded, "timeout"},
		{fmt.Errorf("get: %w", nats.ErrTimeout), "timeout"},
		{nats.ErrNoResponders, "no_responders"},
		{jetstream.ErrNoStreamResponse, "no_responders"},
		{&jetstream.APIError{ErrorCode: 10008, Code: 503}, "api_10008"},
		{jetstream.ErrStreamNotFound, "api_10059"},
		{nats.ErrConnectionClosed, "disconnected"},
		{nats.ErrConnectionReconnecting, "disconnected"},
		{nats.ErrDisconnected, "disconnected"},
		{context.Canceled, "other"},
		{errors.New("boom"), "other"},
	}
	for _, c := range cases {
		if got := readErrName(c.err); got != c.want {
			t.Errorf("readErrName(%v) = %q, want %q", c.err, got, c.want)
		}
	}
}
