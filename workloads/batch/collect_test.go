package batch

import (
	"context"
	"errors"
	"iter"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/synadia-io/orbit.go/jetstreamext"

	"github.com/jetstream-chaos/jetstream-chaos/client"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// answer is a batch direct get's messages, each with the pending count
// the server put on it, then err if any.
func answer(pending []string, err error) iter.Seq2[*jetstream.RawStreamMsg, error] {
	return func(yield func(*jetstream.RawStreamMsg, error) bool) {
		for i, p := range pending {
			h := nats.Header{}
			h.Set(numPendingHeader, p)
			h.Set(BatchHeader, "0.1")
			h.Set(IndexHeader, "1")
			if !yield(&jetstream.RawStreamMsg{Sequence: uint64(i + 1), Subject: "S.s0", Header: h}, nil) {
				return
			}
		}
		if err != nil {
			yield(nil, err)
		}
	}
}

// A read is answered only when its last message says nothing is pending:
// an answer cut by the deadline (the iterator ends with no error) is a
// timed-out read, never a read of fewer subjects.
func TestCollectNeedsTheWholeAnswer(t *testing.T) {
	refused := errors.New("nats: no messages")
	for _, tc := range []struct {
		name    string
		pending []string
		err     error
		ok      bool
		kind    history.ErrKind
	}{
		{"whole", []string{"2", "1", "0"}, nil, true, ""},
		{"one subject", []string{"0"}, nil, true, ""},
		{"cut after two of three", []string{"2", "1"}, nil, false, history.ErrTimeout},
		{"nothing before the deadline", nil, nil, false, history.ErrTimeout},
		{"an error mid-answer", []string{"2"}, refused, false, ""},
		{"404 No Results: an answer of nothing", nil, jetstreamext.ErrNoMessages, true, ""},
		{"no results after a message is no answer", []string{"1"}, jetstreamext.ErrNoMessages, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s Snapshot
			err := collect(answer(tc.pending, tc.err), &s)
			if (err == nil) != tc.ok || len(s.Got) != len(tc.pending) {
				t.Fatalf("err %v, got %d messages", err, len(s.Got))
			}
			if tc.err != nil && !tc.ok && !errors.Is(err, tc.err) {
				t.Errorf("err %v, want %v", err, tc.err)
			}
			if tc.kind != "" && (!errors.Is(err, context.DeadlineExceeded) || client.Classify(err).Kind != tc.kind) {
				t.Errorf("err %v classified %s, want %s", err, client.Classify(err).Kind, tc.kind)
			}
			if tc.ok && len(s.Got) > 0 && (s.Got[0].Batch != "0.1" || s.Got[0].Index != 1) {
				t.Errorf("got %+v", s.Got)
			}
		})
	}
}
