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
)

func TestTransient(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{context.DeadlineExceeded, true},
		{fmt.Errorf("wrapped: %w", nats.ErrNoResponders), true},
		{&jetstream.APIError{Code: 503, ErrorCode: 10008, Description: "JetStream system temporarily unavailable"}, true},
		{&jetstream.APIError{Code: 400, ErrorCode: 10058, Description: "stream name already in use with a different configuration"}, false},
		{errors.New("permissions violation"), false},
		{noPeers, false}, // transient in setup only (RetryTransient)
	} {
		if got := Transient(tc.err); got != tc.want {
			t.Errorf("Transient(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

// noPeers is the meta leader's refusal while it has not heard from a peer.
var noPeers = &jetstream.APIError{Code: 500, ErrorCode: 10005, Description: "no suitable peers for placement, peer offline"}

// A transient error is asked again, a lasting one is not, and the bound
// ends the asking with how often it tried.
func TestRetryTransient(t *testing.T) {
	tests := []struct {
		name  string
		fails int // calls that fail before one succeeds
		err   error
		calls int
		want  string
	}{
		{"a timeout, then success", 2, context.DeadlineExceeded, 3, ""},
		{"a lasting refusal", 1 << 30, errors.New("permissions violation"), 1, "permissions violation"},
		{"timeouts past the bound", 1 << 30, nats.ErrTimeout, -1, "still failing after"},
		{"a peer not yet selectable, then success", 2, noPeers, 3, ""},
		{"placement refused past the bound", 1 << 30, noPeers, -1, "still failing after"},
	}
	for _, tc := range tests {
		calls := 0
		err := RetryTransient(context.Background(), 600*time.Millisecond, func(context.Context) error {
			calls++
			if calls <= tc.fails {
				return tc.err
			}
			return nil
		})
		switch {
		case tc.want == "" && err != nil, tc.want != "" && (err == nil || !errors.Is(err, tc.err)):
			t.Errorf("%s: %v", tc.name, err)
		case tc.calls >= 0 && calls != tc.calls:
			t.Errorf("%s: %d calls, want %d", tc.name, calls, tc.calls)
		case tc.want != "" && !strings.Contains(err.Error(), tc.want):
			t.Errorf("%s: %q does not say %q", tc.name, err, tc.want)
		}
	}
}
