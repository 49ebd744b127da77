package batch

import (
	"fmt"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
)

// Snapshot is one multi-subject read: the last message of each of
// Subjects up to sequence UpTo (a batch direct get, orbit.go jetstreamext
// GetLastMsgsFor with GetLastMsgsUpToSeq), as answered: Got has one
// message per subject that had one.
type Snapshot struct {
	Reader   string   `json:"reader"`
	UpTo     uint64   `json:"up_to"`
	Subjects []string `json:"subjects"`
	Got      []Stored `json:"got"`
	Op       int      `json:"-"`
}

// snapshots is batch-isolation over the multi-subject reads: a read at
// sequence S never answers with a message of a batch wholly at or before
// S together with an older value of a subject that batch wrote, and
// never with a message after S. Only batches the read-back holds whole
// are judged, so a read at S needs the read-back to reach S.
func (j *judge) snapshots(snaps []Snapshot, st storedSet) {
	rb := j.rb
	writes, last := batchWrites(rb)
	first := firstOn(rb)
	for _, s := range snaps {
		j.Counts["snapshots"]++
		if !rb.Complete && s.UpTo > rb.LastSeq {
			j.Unsure("unread", readGap(rb), nil)
			continue
		}
		got := map[string]Stored{}
		var newest uint64
		for _, g := range s.Got {
			got[g.Subject] = g
			newest = max(newest, g.Seq)
			if g.Seq > s.UpTo {
				j.snapFlag("beyond", s, g.Batch, fmt.Sprintf("answered %s with sequence %d, after %d", g.Subject, g.Seq, s.UpTo))
			}
		}
		j.unanswered(s, got, first, newest)
		for _, g := range s.Got {
			b := g.Batch
			if b == "" || !st.whole[b] || last[b] > s.UpTo {
				continue
			}
			for _, q := range s.Subjects {
				want, wrote := writes[b][q]
				if have, ok := got[q]; wrote && ok && have.Seq < want { // a subject answered with nothing is unanswered's
					j.snapFlag("mixed", s, b, fmt.Sprintf("answered %s with message %d of batch %s (sequence %d), but %s with sequence %d, older than the batch's message there at %d",
						g.Subject, g.Index, b, g.Seq, q, have.Seq, want))
				}
			}
		}
	}
}

func (j *judge) snapFlag(kind string, s Snapshot, batch, what string) {
	if batch != "" {
		j.broken[batch] = true
	}
	j.Flag(kind, func() checker.Anomaly {
		a := checker.Anomaly{Key: batch, Description: fmt.Sprintf("reader %s, a read of %d subjects up to sequence %d: %s", s.Reader, len(s.Subjects), s.UpTo, what)}
		if s.Op >= 0 {
			a.Ops = []checker.OpRef{{Index: s.Op}}
		}
		return a
	})
}

// batchWrites is, for every batch in the read-back, the sequence of its
// last message on each subject, and its last sequence.
func batchWrites(rb ReadBack) (map[string]map[string]uint64, map[string]uint64) {
	writes, last := map[string]map[string]uint64{}, map[string]uint64{}
	for _, m := range rb.Msgs {
		if m.Batch == "" {
			continue
		}
		if writes[m.Batch] == nil {
			writes[m.Batch] = map[string]uint64{}
		}
		writes[m.Batch][m.Subject] = m.Seq
		last[m.Batch] = m.Seq
	}
	return writes, last
}

// firstOn is the first sequence the read-back holds on each subject.
func firstOn(rb ReadBack) map[string]uint64 {
	out := map[string]uint64{}
	for _, m := range rb.Msgs {
		if _, ok := out[m.Subject]; !ok {
			out[m.Subject] = m.Seq
		}
	}
	return out
}

// unanswered judges the subjects a read answered nothing for. With some
// subject answered at sequence N, a subject asked whose first message is
// at or before N was left out: no state of the stream at or after N lacks
// it (missing). With nothing answered at all (404 No Results) while an
// asked subject's first message is at or before the sequence asked, the
// read saw the stream as it was before any of them: a stale read, as
// Direct Get allows a replica behind the leader to give (no_results;
// nats-server answers so from a file store asked past its last sequence,
// see repro/multilastbeyond).
func (j *judge) unanswered(s Snapshot, got map[string]Stored, first map[string]uint64, newest uint64) {
	for _, q := range s.Subjects {
		f, held := first[q]
		if _, ok := got[q]; ok || !held {
			continue
		}
		switch {
		case len(got) > 0 && f <= newest:
			j.snapFlag("missing", s, "", fmt.Sprintf("answered nothing for %s, whose first message is at %d, beside a message at %d", q, f, newest))
		case len(got) == 0 && f <= s.UpTo:
			j.snapFlag("no_results", s, "", fmt.Sprintf("answered no message at all (404 No Results), though %s holds a message at %d", q, f))
			return // one example a read
		}
	}
}
