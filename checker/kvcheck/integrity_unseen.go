package kvcheck

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// Counts of stream-integrity when the stream is incomplete.
const (
	// CountUnseenSeqs is how many sequences up to the stream's last nobody
	// saw (present when that last is known).
	CountUnseenSeqs = "unseen_seqs"
	// CountVouchedWrites and CountVouchedReads are the acknowledged writes
	// and the reads at a sequence nobody saw that vouch for each other.
	CountVouchedWrites = "history_verified_writes"
	CountVouchedReads  = "history_verified_reads"
	// CountSettledUnseen is how many indeterminate writes the get that read
	// them places, unambiguously, at a sequence nobody saw (settledUnseen).
	CountSettledUnseen = "history_settled_writes"
)

// maxUnseenNotes is how many undecided judgements a summary names.
const maxUnseenNotes = 5

// unseen is what the history says of the sequences an incomplete stream
// lacks: nobody saw them. A write known stored at such a sequence and a
// read of the same key, value and kind there vouch for each other, so
// neither needs the stream, and the write is an entry of its key that CAS
// checks can count on. A write is known stored there when it was
// acknowledged with that revision (two sources: the ack and the read), or
// when it was indeterminate and the settlement the other checks use
// (resolveInfo) places it there, unambiguously (settledUnseen). What else
// needs such a sequence is undecided, and noted. All of it is per key, so
// the parts of a split history find what the whole does. Its methods do
// nothing on a nil unseen (a complete stream).
type unseen struct {
	stored  map[atRev]int32 // writes known stored at a sequence the stream lacks
	read    map[atRev]bool  // ok gets at such a sequence
	byKey   map[string][]unseenEntry
	settled int // indeterminate writes among stored
	notes   []seqNote
}

// atRev is what a stored write and a read at one revision agree on.
type atRev struct {
	rev        uint64
	key, value string
	marker     bool
}

// unseenEntry is an entry nobody saw that the history vouches for;
// settled: its write was indeterminate, placed there by the get that read
// it (resolveInfo), not acknowledged with that revision.
type unseenEntry struct {
	history.Entry
	settled bool
}

// seqNote is an undecided judgement and the sequence nobody saw it needs.
type seqNote struct {
	seq  uint64
	text string
}

// newUnseen finds what the history vouches for at the sequences the
// stream lacks; info is resolveInfo's settlement of the indeterminate
// writes.
func newUnseen(ops []history.Op, si *streamIndex, info map[int32]infoWrite) *unseen {
	u := &unseen{stored: map[atRev]int32{}, read: map[atRev]bool{}, byKey: map[string][]unseenEntry{}}
	ackedAt := map[uint64]bool{}
	for i := range ops {
		o := &ops[i]
		if !isClientOp(o) || o.Outcome != history.OK || o.Rev == 0 {
			continue
		}
		if _, held := si.at(o.Rev); held {
			continue
		}
		switch {
		case o.IsWrite():
			u.stored[atRev{o.Rev, o.Key, o.Value, o.IsMarker()}] = int32(i)
			ackedAt[o.Rev] = true
		case o.Type == history.Get:
			u.read[atRev{o.Rev, o.Key, o.Value, o.Err == history.ErrNotFound}] = true
		}
	}
	for at, i := range settledUnseen(ops, info, ackedAt) {
		u.stored[at] = i
	}
	for at, i := range u.stored {
		if _, elsewhere := si.value(at.value); u.read[at] && !elsewhere {
			settled := ops[i].Outcome == history.Info
			if settled {
				u.settled++
			}
			e := history.Entry{Seq: at.rev, Key: at.key, Value: at.value, Operation: ops[i].MarkerOperation()}
			u.byKey[at.key] = append(u.byKey[at.key], unseenEntry{e, settled})
		}
	}
	for _, es := range u.byKey {
		slices.SortFunc(es, func(a, b unseenEntry) int { return cmp.Compare(a.Seq, b.Seq) })
	}
	return u
}

// settledUnseen are the indeterminate writes that resolveInfo placed by a
// get that read them, where that is unambiguous: every ok get of the
// write's value and key read it at that revision and as its kind (a
// marker as not found), and no write was acknowledged with the revision
// (ackedAt: the acks at sequences the stream lacks). The value, or a
// marker's id, is unique to its write, so such a get tells where the
// write is; gets that disagree, or an ack or another settlement that
// claims the sequence for another write, leave it to nobody. Only those
// at a sequence the stream lacks matter (a get elsewhere is judged
// against the stream).
func settledUnseen(ops []history.Op, info map[int32]infoWrite, ackedAt map[uint64]bool) map[atRev]int32 {
	byValue := map[string]atRev{}
	at := map[atRev]int32{}
	placed := map[uint64]int{} // how many writes are placed at each revision
	for i, r := range info {
		o := &ops[i]
		if r.how != resObserved || ackedAt[r.rev] {
			continue // an ack claims the sequence for another write
		}
		a := atRev{r.rev, o.Key, o.Value, o.IsMarker()}
		byValue[o.Value], at[a] = a, i
		placed[r.rev]++
	}
	for a := range at {
		if placed[a.rev] > 1 { // gets placed two writes at one sequence
			delete(at, a)
			delete(byValue, a.value)
		}
	}
	for i := range ops {
		o := &ops[i]
		if len(byValue) == 0 {
			break
		}
		if !isClientOp(o) || o.Type != history.Get || o.Outcome != history.OK || o.Rev == 0 {
			continue
		}
		a, ok := byValue[o.Value]
		if ok && a.key == o.Key && (a.rev != o.Rev || a.marker != (o.Err == history.ErrNotFound)) {
			delete(at, a)
			delete(byValue, o.Value)
		}
	}
	return at
}

// vouched says whether op, an acknowledged write or an ok get at a
// sequence the stream lacks, has its counterpart in the history.
func (u *unseen) vouched(o *history.Op) bool {
	if o.IsWrite() {
		return u.read[atRev{o.Rev, o.Key, o.Value, o.IsMarker()}]
	}
	_, ok := u.stored[atRev{o.Rev, o.Key, o.Value, o.Err == history.ErrNotFound}]
	return ok
}

// before is key's latest entry nobody saw that the history vouches for,
// below seq, or nil.
func (u *unseen) before(key string, seq uint64) *unseenEntry {
	if u == nil {
		return nil
	}
	es := u.byKey[key]
	i, _ := slices.BinarySearchFunc(es, seq, func(e unseenEntry, s uint64) int { return cmp.Compare(e.Seq, s) })
	if i == 0 {
		return nil
	}
	return &es[i-1]
}

// note records an undecided judgement that needs seq.
func (u *unseen) note(seq uint64, text string) {
	if u != nil {
		u.notes = append(u.notes, seqNote{seq, text})
	}
}

// lowestNotes sorts notes by sequence and keeps the first maxUnseenNotes:
// the parts' lowest, put together, are the whole's.
func lowestNotes(notes []seqNote) []seqNote {
	slices.SortFunc(notes, func(a, b seqNote) int {
		return cmp.Or(cmp.Compare(a.seq, b.seq), strings.Compare(a.text, b.text))
	})
	return slices.Clip(notes[:min(len(notes), maxUnseenNotes)])
}

// unseenSeqs is how many sequences up to the stream's known last one
// (h.StreamLast) the stream lacks: for a part, the whole stream's.
func unseenSeqs(h *history.History, si *streamIndex) int {
	held := 0
	if h.Part != nil && h.Part.Seqs != nil {
		held = h.Part.Seqs.Rank(h.StreamLast + 1)
	} else {
		held, _ = slices.BinarySearchFunc(si.entries, h.StreamLast+1, func(e history.Entry, s uint64) int { return cmp.Compare(e.Seq, s) })
	}
	return int(h.StreamLast) - held
}

// incompleteSummary is stream-integrity's verdict and words when no
// anomaly was found in a stream read in part: unknown while its last
// sequence is unknown (the read-back failed: loss cannot be decided) or
// a judgement needs a sequence nobody saw that nothing verifies; valid
// otherwise, saying what the history verified.
func incompleteSummary(r *checker.Result) {
	c := r.Counts
	undecided := c["unverifiable_writes"] + c["unverifiable_reads"] + c["unverifiable_cas"]
	vouched := fmt.Sprintf("%d of %d acknowledged writes and %d of %d reads verified by the history alone",
		c[CountVouchedWrites], c[CountAckedWrites], c[CountVouchedReads], c["gets_checked"])
	if n := c[CountSettledUnseen]; n > 0 {
		vouched += fmt.Sprintf(", %d indeterminate writes placed there by the read that saw them", n)
	}
	switch {
	case partOf(*r).lastUnknown:
		r.Verdict = checker.Unknown
		r.Reason = "the stream was not read back in full and its last sequence is unknown: loss cannot be decided"
		if n := c["stream_entries"]; n == 0 {
			r.Summary = "the read-back failed: nothing was read back or observed and the stream's last sequence is unknown, so loss cannot be decided"
		} else {
			r.Summary = fmt.Sprintf("the read-back stopped early: %d entries read or observed and the stream's last sequence unknown, so loss cannot be decided", n)
		}
		r.Summary += " (" + vouched + checker.TornNote(partOf(*r).torn) + ")"
	case undecided > 0:
		r.Verdict = checker.Unknown
		r.Reason = "judgements that need sequences nobody saw, which nothing else verifies, are left undecided"
		var what, named []string
		for _, w := range []struct {
			n, of int
			what  string
		}{{c["unverifiable_writes"], c[CountAckedWrites], "acknowledged writes"}, {c["unverifiable_reads"], c["gets_checked"], "reads"},
			{c["unverifiable_cas"], c["cas_checked"], "CAS checks"}} {
			if w.n > 0 {
				what = append(what, fmt.Sprintf("%d of %d %s", w.n, w.of, w.what))
			}
		}
		for _, n := range partOf(*r).notes {
			named = append(named, fmt.Sprintf("seq %d (%s)", n.seq, n.text))
		}
		if more := undecided - len(named); more > 0 {
			named = append(named, fmt.Sprintf("and %d more", more))
		}
		r.Summary = fmt.Sprintf("%d of %d sequences nobody saw, and nothing else verifies %s that need them: %s",
			c[CountUnseenSeqs], c[CountUnseenSeqs]+c["stream_entries"], joinAnd(what), strings.Join(named, ", "))
	default:
		r.Verdict = checker.Valid
		r.Summary = fmt.Sprintf("all %d acknowledged writes are in the stream or read at their revision, all %d entries were written by live ops, all %d reads match; %d of %d sequences nobody saw: the history verifies every judgement that needs them (%s)",
			c[CountAckedWrites], c["stream_entries"], c["gets_checked"], c[CountUnseenSeqs], c[CountUnseenSeqs]+c["stream_entries"], vouched)
	}
}

// joinAnd joins "a", "b" and "c" as "a, b and c".
func joinAnd(s []string) string {
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}
