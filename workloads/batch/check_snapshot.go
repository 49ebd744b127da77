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
	for _, s := range snaps {
		j.Counts["snapshots"]++
		if !rb.Complete && s.UpTo > rb.LastSeq {
			j.Unsure("unread", readGap(rb), nil)
			continue
		}
		got := map[string]Stored{}
		for _, g := range s.Got {
			got[g.Subject] = g
			if g.Seq > s.UpTo {
				j.snapFlag("beyond", s, g.Batch, fmt.Sprintf("answered %s with sequence %d, after %d", g.Subject, g.Seq, s.UpTo))
			}
		}
		for _, g := range s.Got {
			b := g.Batch
			if b == "" || !st.whole[b] || last[b] > s.UpTo {
				continue
			}
			for _, q := range s.Subjects {
				want, wrote := writes[b][q]
				if have, ok := got[q]; wrote && (!ok || have.Seq < want) {
					j.snapFlag("mixed", s, b, fmt.Sprintf("answered %s with message %d of batch %s (sequence %d), but %s with %s, older than the batch's message there at %d",
						g.Subject, g.Index, b, g.Seq, q, seqWord(have, ok), want))
				}
			}
		}
	}
}

func (j *judge) snapFlag(kind string, s Snapshot, batch, what string) {
	j.broken[batch] = true
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

func seqWord(s Stored, ok bool) string {
	if !ok {
		return "nothing"
	}
	return fmt.Sprintf("sequence %d", s.Seq)
}
