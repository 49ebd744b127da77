package batch

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// CheckAtomic is the name of the all-or-nothing check.
const CheckAtomic = "batch-atomic"

// Atomic is batch-atomic over the stream read back: every acknowledged
// batch is stored whole, in consecutive sequences, in the order its
// messages were added, its last one at the sequence the ack named; every
// refused or abandoned batch is wholly absent; an indeterminate batch is
// whole or absent; no batch is stored in part. ADR-50: a batch is
// committed atomically, all or nothing.
//
// It proves each anomaly from the read-back alone. Where the read stopped
// early, a batch it cannot see to the end, or an acknowledged batch past
// the last sequence read, is unknown, never partial or lost.
func Atomic(batches []Batch, rb ReadBack, maxExamples int) checker.Result {
	b := checker.NewBuilder(CheckAtomic, maxExamples)
	byID := make(map[string]*Batch, len(batches))
	for i := range batches {
		x := &batches[i]
		if _, twice := byID[x.ID]; twice || x.Size <= 0 || x.ID == "" {
			b.Unsure("malformed_batch", fmt.Sprintf("the history records batch %q with %d messages, or twice", x.ID, x.Size), nil)
			continue
		}
		byID[x.ID] = x
		b.Counts[outcomeWord(x.Outcome)]++
	}
	j := &judge{Builder: b, rb: rb, broken: map[string]bool{}, byID: byID}
	runs, order := storedRuns(rb.Msgs, b)
	for _, id := range order {
		if x := byID[id]; x != nil {
			j.stored(x, runs[id])
			continue
		}
		j.flag("unknown_batch", id, func() string {
			return fmt.Sprintf("batch %s is stored (%s) but no producer tried it", id, runs[id].where())
		})
	}
	for i := range batches {
		if x := &batches[i]; byID[x.ID] == x && runs[x.ID] == nil {
			j.absent(x)
		}
	}
	found := plural(len(j.broken), "batch broke all-or-nothing", "batches broke all-or-nothing")
	if len(j.broken) == 0 {
		found = "the stream holds messages no producer published"
	}
	b.Summarize(fmt.Sprintf("%s: %s", found, kindsFound(b)),
		fmt.Sprintf("%d batches: %d stored whole, %d wholly absent", len(byID), b.Counts["whole"], b.Counts["absent"]))
	return b.Result
}

// judge is Atomic at work: the batches it found broken, by id.
type judge struct {
	*checker.Builder
	rb     ReadBack
	broken map[string]bool
	byID   map[string]*Batch
}

// flag counts kind against batch id, its example naming the batch's op.
func (j *judge) flag(kind, id string, describe func() string) {
	j.broken[id] = true
	j.Flag(kind, func() checker.Anomaly {
		a := checker.Anomaly{Key: id, Description: describe()}
		if x := j.byID[id]; x != nil && x.Op >= 0 {
			a.Ops = []checker.OpRef{{Index: x.Op}}
		}
		return a
	})
}

// run is one batch's messages as stored, in sequence order.
type run struct {
	seqs []uint64
	idx  []int
}

func (r *run) where() string {
	if len(r.seqs) == 1 {
		return "sequence " + strconv.FormatUint(r.seqs[0], 10)
	}
	return fmt.Sprintf("%d messages, sequences %d-%d", len(r.seqs), r.seqs[0], r.seqs[len(r.seqs)-1])
}

// storedRuns groups the read-back by batch, in the order batches first
// appear. A message naming no batch is unexpected (unknown_message): the
// workload publishes nothing else, its plain messages included.
func storedRuns(msgs []Stored, b *checker.Builder) (map[string]*run, []string) {
	runs := map[string]*run{}
	var order []string
	for _, m := range msgs {
		if m.Batch == "" {
			b.Flag("unknown_message", func() checker.Anomaly {
				return checker.Anomaly{Key: m.Subject, Description: fmt.Sprintf(
					"the message at sequence %d (subject %s) names no batch: no producer published it", m.Seq, m.Subject)}
			})
			continue
		}
		r := runs[m.Batch]
		if r == nil {
			r = &run{}
			runs[m.Batch] = r
			order = append(order, m.Batch)
		}
		r.seqs = append(r.seqs, m.Seq)
		r.idx = append(r.idx, m.Index)
	}
	return runs, order
}

// stored judges a batch some of whose messages are stored.
func (j *judge) stored(x *Batch, r *run) {
	flag := func(kind, format string, args ...any) {
		j.flag(kind, x.ID, func() string {
			return fmt.Sprintf("batch %s (%s, %d messages, %s): ", x.ID, x.Kind, x.Size, outcomeWord(x.Outcome)) +
				fmt.Sprintf(format, args...) + " (" + r.where() + ")"
		})
	}
	seen := map[int]bool{}
	for i, n := range r.idx {
		switch {
		case seen[n]:
			flag("stored_twice", "message %d is stored more than once", n)
		case n < 1 || n > x.Size:
			flag("out_of_order", "a stored message names place %d of a batch of %d", n, x.Size)
		case i > 0 && n < r.idx[i-1]:
			flag("out_of_order", "message %d is stored after message %d", n, r.idx[i-1])
		}
		if i > 0 && r.seqs[i] != r.seqs[i-1]+1 && !seen[n] && !holeOfMissing(r, i) {
			flag("not_contiguous", "its messages %d and %d are not in consecutive sequences (%d, %d)", r.idx[i-1], n, r.seqs[i-1], r.seqs[i])
		}
		seen[n] = true
	}
	if missing := missingPlaces(seen, x.Size); len(missing) > 0 {
		if !j.rb.Complete && r.seqs[len(r.seqs)-1] >= j.rb.LastSeq {
			j.Unsure("unread", readGap(j.rb), nil)
			return
		}
		flag("partial", "stored in part: %d of its %d messages; missing %s", len(seen), x.Size, places(missing))
		return
	}
	j.Counts["whole"]++
	last := r.seqs[len(r.seqs)-1]
	switch x.Outcome {
	case history.Fail:
		flag("refused_stored", "stored whole although its commit was refused or never made%s", answered(x))
	case history.OK:
		if x.AckSeq != last {
			flag("ack_elsewhere", "acknowledged at sequence %d, but its last message is stored at %d", x.AckSeq, last)
		}
	}
}

// holeOfMissing says the gap before the run's i-th message is exactly its
// batch's missing places (1 and 4 at sequences 5 and 8): partial says it,
// and not_contiguous would count the same hole twice.
func holeOfMissing(r *run, i int) bool {
	d := r.idx[i] - r.idx[i-1]
	return d > 1 && r.seqs[i]-r.seqs[i-1] == uint64(d)
}

// absent judges a batch none of whose messages is stored.
func (j *judge) absent(x *Batch) {
	if x.Outcome != history.OK {
		if !j.rb.Complete { // it may be stored past where the read stopped
			j.Unsure("unread", readGap(j.rb), nil)
			return
		}
		j.Counts["absent"]++
		return
	}
	if !j.rb.Complete && x.AckSeq > j.rb.LastSeq {
		j.Unsure("unread", readGap(j.rb), nil)
		return
	}
	j.flag("acknowledged_absent", x.ID, func() string {
		return fmt.Sprintf("batch %s (%d messages) was acknowledged at sequence %d, and none of its messages is stored", x.ID, x.Size, x.AckSeq)
	})
}

func missingPlaces(seen map[int]bool, size int) []int {
	var out []int
	for n := 1; n <= size; n++ {
		if !seen[n] {
			out = append(out, n)
		}
	}
	return out
}

// places writes "messages 2, 3 and 5", the first eight at most.
func places(ns []int) string {
	var s []string
	for _, n := range ns[:min(len(ns), 8)] {
		s = append(s, strconv.Itoa(n))
	}
	if len(ns) > 8 {
		s = append(s, fmt.Sprintf("%d more", len(ns)-8))
	}
	if len(s) == 1 {
		return "message " + s[0]
	}
	return "messages " + strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

func readGap(rb ReadBack) string {
	if rb.Detail != "" {
		return "the stream was not read to its end (" + rb.Detail + ")"
	}
	return fmt.Sprintf("the stream was read only up to sequence %d", rb.LastSeq)
}

func outcomeWord(o history.Outcome) string {
	switch o {
	case history.OK:
		return "acknowledged"
	case history.Fail:
		return "refused"
	}
	return "indeterminate"
}

func kindsFound(b *checker.Builder) string {
	var out []string
	for _, k := range []string{"partial", "acknowledged_absent", "refused_stored", "not_contiguous", "out_of_order", "stored_twice", "ack_elsewhere", "unknown_batch", "unknown_message"} {
		if n := b.Counts[k]; n > 0 {
			out = append(out, fmt.Sprintf("%s %d", strings.ReplaceAll(k, "_", " "), n))
		}
	}
	return strings.Join(slices.Clip(out), ", ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// answered is what a refused commit was answered, as the history has it.
func answered(x *Batch) string {
	switch {
	case x.ErrCode != 0 && x.ErrMsg != "":
		return fmt.Sprintf(" (answered error %d, %q)", x.ErrCode, x.ErrMsg)
	case x.ErrMsg != "":
		return fmt.Sprintf(" (answered %q)", x.ErrMsg)
	}
	return ""
}
