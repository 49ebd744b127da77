package batch

import (
	"fmt"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
)

// CheckIsolation is the name of the check that no reader sees part of a
// batch.
const CheckIsolation = "batch-isolation"

// Delivery is one message a reader's ordered consumer delivered: the
// consumer reads the whole stream from its first sequence, in order.
type Delivery struct {
	Reader string
	Seq    uint64
	Batch  string // empty for a message of no batch
	Index  int
	Op     int // its op's index in the history, or -1
}

// Isolation is batch-isolation: no reader sees part of a batch.
//   - Over the readers' ordered consumers: a consumer that delivers a
//     batch's first message delivers the rest, in order, before any later
//     message, and never delivers a message of a batch the stream does not
//     hold whole (a batch seen before it was committed, or one the stream
//     later lost in part). A reader whose deliveries end inside a batch (it
//     was stopped) is not judged on that batch.
//   - Over the multi-subject reads (Snapshot): see snapshots.
//
// Which batches the stream holds whole comes from the read-back; where it
// is incomplete, what it cannot see is unknown.
func Isolation(batches []Batch, rb ReadBack, deliveries []Delivery, snaps []Snapshot, maxExamples int) checker.Result {
	b := checker.NewBuilder(CheckIsolation, maxExamples)
	j := &judge{Builder: b, rb: rb, broken: map[string]bool{}}
	size := make(map[string]int, len(batches))
	for _, x := range batches {
		size[x.ID] = x.Size
	}
	st := storedBatches(rb, size)
	open := map[string]Delivery{} // each reader's batch under way: its last delivery
	flag := func(kind string, d Delivery, format string, args ...any) {
		b.Flag(kind, func() checker.Anomaly {
			a := checker.Anomaly{Key: d.Batch, Description: fmt.Sprintf("reader %s, sequence %d: ", d.Reader, d.Seq) + fmt.Sprintf(format, args...)}
			if d.Op >= 0 {
				a.Ops = []checker.OpRef{{Index: d.Op}}
			}
			return a
		})
	}
	readers := map[string]bool{}
	for _, d := range deliveries {
		readers[d.Reader] = true
		prev, inBatch := open[d.Reader]
		delete(open, d.Reader)
		switch {
		case inBatch && (d.Batch != prev.Batch || d.Index != prev.Index+1):
			flag("interleaved", prev, "delivered message %d of batch %s (%d messages), then %s instead of message %d",
				prev.Index, prev.Batch, size[prev.Batch], describe(d), prev.Index+1)
		case !inBatch && d.Batch != "" && d.Index != 1:
			flag("interleaved", d, "delivered message %d of batch %s without message %d before it", d.Index, d.Batch, d.Index-1)
		}
		if d.Batch == "" {
			continue
		}
		b.Counts["batch_messages_delivered"]++
		switch {
		case st.whole[d.Batch]:
		case size[d.Batch] == 0:
			flag("unknown_batch", d, "delivered message %d of batch %s, which no producer tried", d.Index, d.Batch)
		case !rb.Complete && (d.Seq > rb.LastSeq || st.end[d.Batch] >= rb.LastSeq):
			b.Unsure("unread", readGap(rb), nil)
		default:
			flag("saw_partial", d, "delivered message %d of batch %s (%d messages), which the stream read back does not hold whole", d.Index, d.Batch, size[d.Batch])
		}
		if d.Index < size[d.Batch] {
			open[d.Reader] = d
		}
	}
	j.snapshots(snaps, st)
	b.Counts["readers"] = len(readers)
	b.Summarize(fmt.Sprintf("%d deliveries and %d multi-subject reads broke a batch's isolation",
		b.Counts["interleaved"]+b.Counts["saw_partial"]+b.Counts["unknown_batch"], b.Counts["mixed"]+b.Counts["beyond"]+b.Counts["missing"]+b.Counts["no_results"]),
		fmt.Sprintf("%d batch messages delivered to %d readers, each batch whole and uninterrupted; %d multi-subject reads, none mixing a batch with older values",
			b.Counts["batch_messages_delivered"], len(readers), b.Counts["snapshots"]))
	return b.Result
}

// storedSet is which batches the read-back holds whole, and the last
// sequence each batch reaches in it.
type storedSet struct {
	whole map[string]bool
	end   map[string]uint64
}

func storedBatches(rb ReadBack, size map[string]int) storedSet {
	places := map[string]map[int]bool{}
	st := storedSet{whole: map[string]bool{}, end: map[string]uint64{}}
	for _, m := range rb.Msgs {
		if m.Batch == "" {
			continue
		}
		if places[m.Batch] == nil {
			places[m.Batch] = map[int]bool{}
		}
		places[m.Batch][m.Index] = true
		st.end[m.Batch] = m.Seq
	}
	for id, p := range places {
		st.whole[id] = size[id] > 0 && len(missingPlaces(p, size[id])) == 0
	}
	return st
}

// describe names a delivery: "message 2 of batch b" or "a message of no
// batch".
func describe(d Delivery) string {
	if d.Batch == "" {
		return fmt.Sprintf("a message of no batch (sequence %d)", d.Seq)
	}
	return fmt.Sprintf("message %d of batch %s (sequence %d)", d.Index, d.Batch, d.Seq)
}
