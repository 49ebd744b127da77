package kvupdate

import (
	"sort"

	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// mergeStreams is the stream the checkers judge when the bucket drops
// revisions: the read-back after the heal, with what the observers saw
// filling the sequences it no longer holds (deleted by the per-key
// history or a purge, or lost). Where both hold a sequence the read-back
// wins; the retention checker compares them. judgedStream says whether it
// is complete.
func mergeStreams(final, observed []history.Entry) []history.Entry {
	bySeq := make(map[uint64]history.Entry, len(observed)+len(final))
	for _, e := range observed {
		bySeq[e.Seq] = e
	}
	for _, e := range final {
		bySeq[e.Seq] = e
	}
	out := make([]history.Entry, 0, len(bySeq))
	for _, e := range bySeq {
		out = append(out, e)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Seq < out[b].Seq })
	return out
}

// streamFacts is what only the whole stream the checkers judge tells
// (history.History.StreamComplete and StreamLast): a part of a split
// cell has its keys' entries only.
type streamFacts struct {
	complete bool
	last     uint64 // the stream's last sequence; 0: unknown (or none)
	// readReached is the highest sequence the read-back holds (0: none, or
	// the whole read-back is at hand): read in order from the first, it
	// holds every message up to there (checker.Final.Reached).
	readReached uint64
}

// judgedStream says whether the stream the checkers judge is complete and
// how far it goes, from the read-back's completeness, observed.jsonl's
// head (nil: the observers were never drained, the run was interrupted),
// and the sequences that stream holds: held of them, the highest maxHeld.
// It is the read-back alone when the bucket keeps every revision and no
// purge removed any (it must then hold all), else the read-back merged
// with what the observers saw (mergeStreams): complete when every
// sequence up to the last is in one or the other, which needs the last
// known, and without the observers' share the bucket's dropped revisions
// are unknown.
func (b Bucket) judgedStream(readComplete bool, head *ObservedHead, held int, maxHeld uint64) streamFacts {
	var lastSeq uint64
	if head != nil {
		lastSeq = head.LastSeq
	}
	last := streamLast(readComplete, lastSeq, maxHeld)
	switch {
	case !b.merged():
		return streamFacts{complete: readComplete, last: last}
	case head == nil:
		return streamFacts{last: last}
	}
	// An empty read-back that failed, with last_seq 0, is not an empty
	// stream: its last sequence was never learnt (kv/i1min_readback_failed).
	known := readComplete || lastSeq > 0
	return streamFacts{complete: known && uint64(held) == last, last: last}
}

// streamLast is the stream's last sequence when it is known: the
// observers were drained up to lastSeq (the stream's, asked after the
// heal), or the read-back reached the end (complete: a bucket always
// keeps its newest message), the highest sequence held counting too; 0
// when neither, the read-back having failed before the stream's last
// sequence was learnt (or the stream is empty).
func streamLast(readComplete bool, lastSeq, maxHeld uint64) uint64 {
	if lastSeq == 0 && !readComplete {
		return 0
	}
	return max(lastSeq, maxHeld)
}

// merged says whether the checkers' stream is the read-back merged with
// what the observers saw: when the bucket drops revisions, or purges
// remove them.
func (b Bucket) merged() bool { return b.perKey() != 0 || b.Mix.Purge > 0 }
