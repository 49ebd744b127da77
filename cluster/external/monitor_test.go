package external

import (
	"context"
	"errors"
	"fmt"
	"net"
	"syscall"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

// TestClassify: an answer of any status is an answer, a refusal or an
// address that leads nowhere is a node gone, a timeout is silence, and the
// rest is not guessed at.
func TestClassify(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want probe
	}{
		{"200", nil, answered},
		{"503", &cluster.HTTPError{Path: "/varz", Status: 503}, answered},
		{"refused", &net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}, gone},
		{"reset", fmt.Errorf("read: %w", syscall.ECONNRESET), gone},
		{"no route", &net.OpError{Op: "dial", Err: syscall.EHOSTUNREACH}, gone},
		{"no such host", &net.DNSError{Name: "n9", IsNotFound: true}, gone},
		{"timeout", context.DeadlineExceeded, silent},
		{"TLS", errors.New("tls: failed to verify certificate"), unknown},
	}
	for _, c := range cases {
		if got := classify(c.err); got != c.want {
			t.Errorf("%s: classify(%v) = %d, want %d", c.name, c.err, got, c.want)
		}
	}
}
