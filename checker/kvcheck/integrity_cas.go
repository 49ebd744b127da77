package kvcheck

import (
	"fmt"
	"sort"

	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// streamGap reports whether the stream lacks a sequence strictly between
// lo and hi: whether fewer of them are in the stream than lie between.
// For a part of a split history, the whole stream's sequences decide
// (history.Part.Seqs): the part holds its own keys' entries only.
func streamGap(h *history.History, si *streamIndex) func(lo, hi uint64) bool {
	rank := func(seq uint64) int { // entries below seq
		return sort.Search(len(si.entries), func(i int) bool { return si.entries[i].Seq >= seq })
	}
	if h.Part != nil && h.Part.Seqs != nil {
		rank = h.Part.Seqs.Rank
	}
	return func(lo, hi uint64) bool {
		held := rank(hi) - rank(lo+1)
		return hi-lo-1 > uint64(held)
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
// create that took effect against the entry its key held just before it:
// the stream's, or one nobody saw that the history vouches for (un, nil
// when the stream is complete).
func checkCAS(ops []history.Op, si *streamIndex, un *unseen, gap func(lo, hi uint64) bool, best map[string]int32, complete bool,
	counts map[string]int, add func(kind, key, desc string, entries []history.Entry, idx ...int)) {
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
		var vouched *unseenEntry
		if v := un.before(e.Key, e.Seq); v != nil && v.Seq > prevSeq {
			pe, prevSeq, vouched = &v.Entry, v.Seq, v
		}
		var d string
		if w.Type == history.Create {
			if pe == nil || pe.Operation != "" {
				continue
			}
			if !complete && gap(prevSeq, e.Seq) {
				unverifiable++ // a delete marker may sit in a sequence nobody saw
				un.note(e.Seq, fmt.Sprintf("client %d's create of %s stored after sequences nobody saw", w.Client, e.Key))
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
					unverifiable++ // the expected entry may be in a sequence nobody saw
					un.note(expected, fmt.Sprintf("the revision client %d's update of %s expected", w.Client, e.Key))
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
		switch {
		case vouched != nil && vouched.settled:
			d += fmt.Sprintf(" (seq %d: nobody saw it in the stream, but a read returned it there, which settles its indeterminate write at that revision)", pe.Seq)
		case vouched != nil:
			d += fmt.Sprintf(" (seq %d: nobody saw it in the stream, but a read returned it at the revision its write was acknowledged with)", pe.Seq)
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
