package batch

import (
	"context"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/jetstream-chaos/jetstream-chaos/history/msgid"
)

// readBack reads the stream's batch headers after the heal, in sequence
// order, within bound (msgid.Scan: an ordered consumer, headers only). A
// message without the batch header is kept with an empty Batch; one whose
// place does not parse, with place 0, which the checks name.
func readBack(ctx context.Context, js jetstream.JetStream, stream string, bound time.Duration) ReadBack {
	var rb ReadBack
	r := msgid.Scan(ctx, js, stream, bound, func(seq uint64, subject string, h nats.Header) {
		s := Stored{Seq: seq, Subject: subject, Batch: h.Get(BatchHeader)}
		if s.Batch != "" {
			s.Index, _ = strconv.Atoi(h.Get(IndexHeader))
		}
		rb.Msgs = append(rb.Msgs, s)
	})
	rb.Complete, rb.LastSeq = r.Complete, r.LastSeq
	if !r.Complete {
		rb.Detail = r.Detail
	}
	return rb
}
