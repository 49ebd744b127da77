package checker

import (
	"fmt"
	"strings"

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
// info_unresolved. If the stream is incomplete the verdict is unknown unless
// an anomaly is found in the part that was read (an entry present in a
// partial stream is still proof).
//
// Counts: acked_writes, stream_entries, gets_checked, cas_checked, plus one
// count per anomaly kind above (always present) and the info_* tallies;
// with an incomplete stream, unverifiable_writes, unverifiable_reads and
// unverifiable_cas.
type Integrity struct{ opts Options }

// NewIntegrity returns the lost-write / unexpected-value checker.
func NewIntegrity(opts Options) *Integrity { return &Integrity{opts: opts.withDefaults()} }

// Name implements Checker.
func (*Integrity) Name() string { return NameIntegrity }

var integrityKinds = []string{CountLostWrite, CountRevMismatch, CountUnexpectedValue, CountFailedWriteApplied,
	CountDuplicateValue, CountUnexpectedTombstone, CountBadRead, CountCASViolation}

// Check implements Checker.
func (c *Integrity) Check(h history.History) Result {
	if r, bad := rejectMalformed(c.Name(), &h); bad {
		return r
	}
	ops := h.Ops
	si := newStreamIndex(&h)
	counts := map[string]int{"stream_entries": len(si.entries), CountAckedWrites: 0, "gets_checked": 0, "cas_checked": 0,
		"info_applied": 0, "info_not_applied": 0, "info_unresolved": 0}
	if !h.StreamComplete {
		counts["unverifiable_writes"], counts["unverifiable_reads"], counts["unverifiable_cas"] = 0, 0, 0
	}
	for _, k := range integrityKinds {
		counts[k] = 0
	}
	ex := newExamples(c.opts.MaxExamples)
	add := func(kind, key, desc string, entries []history.Entry, idx ...int) {
		counts[kind]++
		if ex.want(kind) {
			ex.add(Anomaly{Kind: kind, Key: key, Description: desc, Ops: refs(ops, idx...), Entries: entries})
		}
	}
	complete := h.StreamComplete
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
			counts["unverifiable_writes"]++
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
	checkCAS(ops, si, streamGap(&h, si), best, complete, counts, add)
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
			counts["unverifiable_reads"]++
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
	for _, r := range resolveInfo(ops, si, complete) {
		switch r.how {
		case resStream, resObserved:
			counts["info_applied"]++
		case resNotApplied:
			counts["info_not_applied"]++
		default:
			counts["info_unresolved"]++
		}
	}

	r := Result{Name: c.Name(), Counts: counts, Anomalies: ex.list, part: &partState{incomplete: !complete}}
	c.finish(&r)
	return r
}

// finish implements finisher.
func (c *Integrity) finish(r *Result) {
	counts, complete := r.Counts, !r.part.incomplete
	var found []string
	for _, k := range integrityKinds {
		if n := counts[k]; n > 0 {
			found = append(found, fmt.Sprintf("%d %s", n, k))
		}
	}
	entries := counts["stream_entries"]
	switch {
	case len(found) > 0:
		r.Verdict = Invalid
		r.Summary = strings.Join(found, ", ") + fmt.Sprintf(" (%d acknowledged writes, %d stream entries)", counts[CountAckedWrites], entries)
		if !complete {
			r.Summary += "; stream incomplete"
		}
	case !complete:
		r.Verdict = Unknown
		r.Reason = fmt.Sprintf("the stream could not be read in full (%d entries read): lost writes and unexpected values cannot be ruled out", entries)
		r.Summary = fmt.Sprintf("stream incomplete: %d of %d acknowledged writes and %d of %d reads could not be verified",
			counts["unverifiable_writes"], counts[CountAckedWrites], counts["unverifiable_reads"], counts["gets_checked"])
	default:
		r.Verdict = Valid
		r.Summary = fmt.Sprintf("all %d acknowledged writes are in the stream, all %d entries were written by live ops, all %d reads match",
			counts[CountAckedWrites], entries, counts["gets_checked"])
	}
}

// streamGap reports whether the stream lacks a sequence between its
// entries a and b: whether more sequences lie between them than the stream
// holds. For a part of a split history, the whole stream's count decides
// (history.Part.Seqs): the part holds its own keys' entries only.
func streamGap(h *history.History, si *streamIndex) func(a, b int) bool {
	return func(a, b int) bool {
		ea, eb := &si.entries[a], &si.entries[b]
		held := uint64(b - a)
		if h.Part != nil && h.Part.Seqs != nil {
			held = uint64(h.Part.Seqs.Rank(eb.Seq) - h.Part.Seqs.Rank(ea.Seq))
		}
		return eb.Seq-ea.Seq > held
	}
}

func failText(o *history.Op) string {
	if o.ErrCode != 0 {
		return fmt.Sprintf("%s %d", o.Err, o.ErrCode)
	}
	if o.Err != "" {
		return string(o.Err)
	}
	return "fail"
}

// checkCAS walks the stream in sequence order and checks each update and
// create that took effect against the entry its key held just before it.
func checkCAS(ops []history.Op, si *streamIndex, gap func(a, b int) bool, best map[string]int32, complete bool, counts map[string]int,
	add func(kind, key, desc string, entries []history.Entry, idx ...int)) {
	prev := map[string]int32{} // key -> its latest entry so far
	checked, unverifiable := 0, 0
	for ei := range si.entries {
		e := &si.entries[ei]
		p, hasPrev := prev[e.Key]
		prev[e.Key] = int32(ei)
		b, ok := best[e.Value]
		if e.Operation != "" || !ok || si.byValue[e.Value] != int32(ei) {
			continue // tombstones, values nobody wrote and duplicates are reported above
		}
		w := &ops[b]
		if w.Key != e.Key || w.Outcome == history.Fail || (w.Type != history.Update && w.Type != history.Create) {
			continue
		}
		checked++
		var pe *history.Entry
		var prevSeq uint64
		if hasPrev {
			pe = &si.entries[p]
			prevSeq = pe.Seq
		}
		var d string
		if w.Type == history.Create {
			if pe == nil || pe.Operation != "" {
				continue
			}
			if !complete && gap(int(p), ei) {
				unverifiable++ // a delete marker may sit in the part not read
				continue
			}
			d = fmt.Sprintf("is stored at seq %d although the key already held %q at seq %d", e.Seq, pe.Value, pe.Seq)
		} else {
			expected := w.ExpectedRev
			switch {
			case prevSeq == expected:
				continue
			case prevSeq < expected && expected < e.Seq && !complete:
				if _, ok := si.at(expected); !ok {
					unverifiable++ // the expected entry may be in the part not read
					continue
				}
			}
			d = fmt.Sprintf("expecting revision %d is stored at seq %d, but the key's previous entry is ", expected, e.Seq)
			if pe == nil {
				d += "none"
			} else {
				d += fmt.Sprintf("seq %d (%q)", pe.Seq, pe.Value)
			}
			if prevSeq > expected {
				d += ": two writes took effect on one expected revision"
			} else {
				d += fmt.Sprintf(": seq %d is not an earlier entry of %s", expected, e.Key)
			}
		}
		entries, idx := []history.Entry{*e}, []int{int(b)}
		if pe != nil {
			entries = []history.Entry{*pe, *e}
			if pb, ok := best[pe.Value]; ok && pe.Operation == "" {
				idx = append(idx, int(pb))
			}
		}
		add(CountCASViolation, e.Key, fmt.Sprintf("client %d's %s of %s (%s) %s", w.Client, w.Type, e.Key, w.Outcome, d), entries, idx...)
	}
	counts["cas_checked"] = checked
	if !complete {
		counts["unverifiable_cas"] = unverifiable
	}
}
