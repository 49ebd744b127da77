package client

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
)

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
