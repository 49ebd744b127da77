package kvcheck

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// Integrity compares the ops with the stream read back after the run
// (History.Stream), relying on every written value being unique:
//
//   - lost_write: an acknowledged write (ok update/put/create with rev R) is
//     not in the stream; rev_mismatch: its value is there, but not at seq R
//     under its key.
//   - unexpected_value: a stream entry whose value nobody wrote to that key;
//     failed_write_applied: one written only by definitely failed ops;
//     duplicate_value: a value stored at two sequences;
//     unexpected_tombstone: a delete or purge marker that no delete or
//     purge op wrote (a marker's Value is its op's id).
//   - bad_read: an ok get whose (revision, value) is not the stream's entry
//     at that sequence (a not-found get with a revision saw a marker: it
//     must be that marker).
//   - seq_conflict: two writes of different keys or values acknowledged
//     with one revision: the stream gave one sequence to two messages (it
//     reused it after losing it, or a diverged server acknowledged its
//     own). The acks are proof whether or not anybody saw the sequence.
//   - cas_violation: an update that took effect (acknowledged, or
//     indeterminate and found in the stream) stored at seq S whose key's
//     previous entry before S is not at the revision it expected, or a
//     create stored after a live entry of its key. The server checks
//     Nats-Expected-Last-Subject-Sequence against the subject's last
//     sequence, so two updates expecting one revision cannot both be
//     stored: this catches a double-success CAS in linear time, whether or
//     not porcupine finishes. With an incomplete stream, a missing expected
//     revision is unverifiable (unverifiable_cas) rather than an anomaly.
//
// Indeterminate writes are tallied as info_applied, info_not_applied and
// info_unresolved.
//
// A stream that is incomplete (History.StreamComplete false: sequences
// nobody saw) costs only the judgements that need what it lacks. An
// acknowledged write and a read of the same key, value and kind at a
// sequence nobody saw verify each other (the ack named that revision, the
// read saw that value there; history_verified_writes and _reads), and the
// write is then an entry of its key for the CAS checks. So is an
// indeterminate write that the settlement every check uses (resolveInfo)
// places there by the read that saw it, when nothing contradicts it
// (history_settled_writes): that read is verified too; the other
// judgements that need such a sequence are undecided (unverifiable_*),
// and the summary names the lowest of them. The verdict is invalid if an
// anomaly is found in what was read (an entry present in a partial stream
// is still proof); else unknown while something is undecided, or while
// the stream's last sequence is unknown (History.StreamLast 0: the
// read-back failed, and loss cannot be decided); else valid, saying how
// many sequences nobody saw (unseen_seqs). What those sequences held is
// judged only through the ops that name them.
//
// Counts: acked_writes, stream_entries, gets_checked, cas_checked, plus one
// count per anomaly kind above (always present) and the info_* tallies;
// with an incomplete stream, unverifiable_writes, unverifiable_reads,
// unverifiable_cas, history_verified_writes, history_verified_reads,
// history_settled_writes, and unseen_seqs when its last sequence is known.
type Integrity struct{ opts checker.Options }

// NewIntegrity returns the lost-write / unexpected-value checker.
func NewIntegrity(opts checker.Options) *Integrity { return &Integrity{opts: opts.WithDefaults()} }

// Name implements Checker.
func (*Integrity) Name() string { return NameIntegrity }

var integrityKinds = []string{CountLostWrite, CountRevMismatch, CountUnexpectedValue, CountFailedWriteApplied,
	CountDuplicateValue, CountUnexpectedTombstone, CountBadRead, CountCASViolation, CountSeqConflict}

// Check implements Checker.
func (c *Integrity) Check(h history.History) checker.Result {
	if r, bad := rejectMalformed(c.Name(), &h); bad {
		return r
	}
	ops := h.Ops
	si := newStreamIndex(&h)
	counts := map[string]int{"stream_entries": len(si.entries), CountAckedWrites: 0, "gets_checked": 0, "cas_checked": 0,
		"info_applied": 0, "info_not_applied": 0, "info_unresolved": 0}
	complete := h.StreamComplete
	info := resolveInfo(ops, si, complete)
	var un *unseen // nil: the stream is complete
	if !complete {
		un = newUnseen(ops, si, info)
		counts["unverifiable_writes"], counts["unverifiable_reads"], counts["unverifiable_cas"] = 0, 0, 0
		counts[CountVouchedWrites], counts[CountVouchedReads], counts[CountSettledUnseen] = 0, 0, un.settled
		if h.StreamLast > 0 {
			counts[CountUnseenSeqs] = unseenSeqs(&h, si)
		}
	}
	for _, k := range integrityKinds {
		counts[k] = 0
	}
	ex := checker.NewExamples(c.opts.MaxExamples)
	add := func(kind, key, desc string, entries []history.Entry, idx ...int) {
		counts[kind]++
		if ex.Want(kind) {
			ex.Add(checker.Anomaly{Kind: kind, Key: key, Description: desc, Ops: refs(ops, idx...), Entries: entries})
		}
	}
	// best[value] is the write of that value with the most definite outcome.
	best := make(map[string]int32, len(ops)/2)
	rank := func(o history.Outcome) int {
		switch o {
		case history.OK:
			return 2
		case history.Info:
			return 1
		}
		return 0
	}
	for i := range ops {
		o := &ops[i]
		if !isClientOp(o) || !o.IsWrite() {
			continue
		}
		if b, ok := best[o.Value]; !ok || rank(o.Outcome) > rank(ops[b].Outcome) {
			best[o.Value] = int32(i)
		}
		if o.Outcome != history.OK {
			continue
		}
		counts[CountAckedWrites]++
		if e, ok := si.at(o.Rev); ok && e.Key == o.Key && e.Value == o.Value && e.Operation == o.MarkerOperation() {
			continue
		}
		if e, ok := si.value(o.Value); ok {
			add(CountRevMismatch, o.Key, fmt.Sprintf("client %d's %s of %s was acknowledged with revision %d but the stream holds its value at seq %d under key %s",
				o.Client, o.Type, o.Key, o.Rev, e.Seq, e.Key), []history.Entry{*e}, i)
			continue
		}
		if _, ok := si.at(o.Rev); !ok && !complete {
			if un.vouched(o) {
				counts[CountVouchedWrites]++
			} else {
				counts["unverifiable_writes"]++
				un.note(o.Rev, fmt.Sprintf("client %d's %s of %s", o.Client, o.Type, o.Key))
			}
			continue
		}
		var at []history.Entry
		if e, ok := si.at(o.Rev); ok {
			at = append(at, *e)
		}
		add(CountLostWrite, o.Key, fmt.Sprintf("client %d's %s of %s was acknowledged with revision %d (at %.3fms) but its value %q is not in the stream",
			o.Client, o.Type, o.Key, o.Rev, ms(o.Complete), o.Value), at, i)
	}
	for ei := range si.entries {
		e := &si.entries[ei]
		b, ok := best[e.Value]
		if e.Operation != "" && (!ok || ops[b].MarkerOperation() != e.Operation) {
			add(CountUnexpectedTombstone, e.Key, fmt.Sprintf("seq %d is a %s marker for %s that no delete or purge wrote", e.Seq, e.Operation, e.Key),
				[]history.Entry{*e})
			continue
		}
		switch {
		case !ok || ops[b].Key != e.Key:
			d := fmt.Sprintf("seq %d holds value %q under %s, which no op wrote to that key", e.Seq, e.Value, e.Key)
			if ok {
				d += fmt.Sprintf(" (client %d wrote it to %s)", ops[b].Client, ops[b].Key)
				add(CountUnexpectedValue, e.Key, d, []history.Entry{*e}, int(b))
			} else {
				add(CountUnexpectedValue, e.Key, d, []history.Entry{*e})
			}
		case ops[b].Outcome == history.Fail:
			add(CountFailedWriteApplied, e.Key, fmt.Sprintf("seq %d holds value %q, written only by client %d's %s that failed definitely (%s)",
				e.Seq, e.Value, ops[b].Client, ops[b].Type, failText(&ops[b])), []history.Entry{*e}, int(b))
		}
	}
	checkCAS(ops, si, un, streamGap(&h, si), best, complete, counts, add)
	seqConflicts(ops, si, add)
	for _, d := range si.dups {
		e := &si.entries[d]
		first := si.entries[si.byValue[e.Value]]
		idx := -1
		if b, ok := best[e.Value]; ok {
			idx = int(b)
		}
		add(CountDuplicateValue, e.Key, fmt.Sprintf("value %q is stored twice, at seq %d and seq %d: one write applied twice", e.Value, first.Seq, e.Seq),
			[]history.Entry{first, *e}, idx)
	}
	for i := range ops {
		o := &ops[i]
		if !isClientOp(o) || o.Type != history.Get || o.Outcome != history.OK || o.Rev == 0 {
			continue
		}
		counts["gets_checked"]++
		e, ok := si.at(o.Rev)
		if ok && e.Key == o.Key && e.Value == o.Value && (e.Operation != "") == (o.Err == history.ErrNotFound) {
			continue
		}
		if !ok && !complete {
			if un.vouched(o) {
				counts[CountVouchedReads]++
			} else {
				counts["unverifiable_reads"]++
				un.note(o.Rev, fmt.Sprintf("client %d's get of %s", o.Client, o.Key))
			}
			continue
		}
		d := fmt.Sprintf("client %d get %s returned revision %d value %q, but ", o.Client, o.Key, o.Rev, o.Value)
		var at []history.Entry
		if ok {
			at = append(at, *e)
			d += fmt.Sprintf("the stream holds %q under %s at seq %d", e.Value, e.Key, e.Seq)
		} else {
			d += fmt.Sprintf("the stream has no seq %d", o.Rev)
		}
		add(CountBadRead, o.Key, d, at, i)
	}
	for _, r := range info {
		switch r.how {
		case resStream, resObserved:
			counts["info_applied"]++
		case resNotApplied:
			counts["info_not_applied"]++
		default:
			counts["info_unresolved"]++
		}
	}

	r := checker.Result{Name: c.Name(), Counts: counts, Anomalies: ex.List(),
		Part: &partState{incomplete: !complete, torn: h.StreamTorn, lastUnknown: !complete && h.StreamLast == 0}}
	if un != nil {
		partOf(r).notes = lowestNotes(un.notes)
	}
	c.finish(&r)
	return r
}

// finish implements finisher.
func (c *Integrity) finish(r *checker.Result) {
	counts, complete := r.Counts, !partOf(*r).incomplete
	var found []string
	for _, k := range integrityKinds {
		if n := counts[k]; n > 0 {
			found = append(found, fmt.Sprintf("%d %s", n, k))
		}
	}
	entries := counts["stream_entries"]
	switch {
	case len(found) > 0:
		r.Verdict = checker.Invalid
		r.Summary = strings.Join(found, ", ") + fmt.Sprintf(" (%d acknowledged writes, %d stream entries)", counts[CountAckedWrites], entries)
		if !complete {
			r.Summary += "; stream incomplete"
		}
	case !complete:
		incompleteSummary(r)
	default:
		r.Verdict = checker.Valid
		r.Summary = fmt.Sprintf("all %d acknowledged writes are in the stream, all %d entries were written by live ops, all %d reads match",
			counts[CountAckedWrites], entries, counts["gets_checked"])
	}
}

// seqConflicts reports each acknowledged write whose revision an earlier
// acknowledged write of another key or value was given (seq_conflict).
// The acks are sorted by revision rather than held in a map: a long
// run's millions of acks cost four bytes each.
func seqConflicts(ops []history.Op, si *streamIndex, add func(kind, key, desc string, entries []history.Entry, idx ...int)) {
	var acked []int32
	for i := range ops {
		if o := &ops[i]; isClientOp(o) && o.IsWrite() && o.Outcome == history.OK {
			acked = append(acked, int32(i))
		}
	}
	slices.SortStableFunc(acked, func(a, b int32) int { return cmp.Compare(ops[a].Rev, ops[b].Rev) })
	first := 0 // the first ack of the revision at hand
	for n := 1; n < len(acked); n++ {
		o, f := &ops[acked[n]], &ops[acked[first]]
		if o.Rev != f.Rev {
			first = n
			continue
		}
		if o.Key == f.Key && o.Value == f.Value {
			continue
		}
		var at []history.Entry
		if e, ok := si.at(o.Rev); ok {
			at = append(at, *e)
		}
		add(CountSeqConflict, o.Key, fmt.Sprintf("client %d's %s of %s (%q) and client %d's %s of %s (%q) were both acknowledged with revision %d: the stream gave one sequence to two writes",
			f.Client, f.Type, f.Key, f.Value, o.Client, o.Type, o.Key, o.Value, o.Rev), at, int(acked[first]), int(acked[n]))
	}
}
