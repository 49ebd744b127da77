package kvcheck

import (
	"fmt"
	"sort"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// NameRetention is the read-back check's name.
const NameRetention = "read-back"

// Retention's counts.
const (
	CountLastValueLost   = "last_value_lost"
	CountRetainedMissing = "retained_missing"
	CountRetainedExtra   = "retained_extra"
	CountRetainedChanged = "retained_changed"
	CountSeqConflict     = "seq_conflict"
)

// Final is the bucket's stream read back after the heal, how many
// revisions per key the stream keeps (0: all), and what the observers saw
// during the run (sorted by sequence).
type Final struct {
	Entries  []history.Entry
	Complete bool
	// Torn is the line of stream.jsonl cut short (history.History.StreamTorn).
	Torn int
	// Reached is the highest sequence the read-back holds, for a part of a
	// split cell the whole read-back's (0: none, or the part's own are
	// all that is known). The read-back is read in sequence order from the
	// stream's first message, so one not read in full still holds every
	// message up to where it reached (see Deletes).
	Reached  uint64
	PerKey   int
	Observed []history.Entry
	// Conflicts are messages the observers saw at a sequence where they
	// had already seen another.
	Conflicts []history.Entry
}

// Retention checks the read-back after the heal against what the stream
// must still hold, given every message known to have been stored: those
// the observers saw during the run (Final.Observed) and every
// acknowledged write at its revision. For each key, with p its last purge
// marker (a rollup removes every older message of the key) and N the
// revisions kept per key:
//
//   - last_value_lost: the key's newest known message is not in the
//     read-back (whatever N is, the last revision stays);
//   - retained_missing (keep-all only): a known message at or after p is
//     not in the read-back;
//   - retained_extra: the read-back holds a message older than p, or one
//     followed by N or more known messages of its key up to the newest it
//     holds: it should be gone (known messages after that newest one are
//     missing from it, lost, and remove nothing: last_value_lost);
//   - retained_changed: the read-back holds at a sequence another message
//     than the observers saw there;
//   - seq_conflict: the observers were given two different messages at
//     one sequence during the run: a server that diverged served its own
//     (an ordered consumer can sit on any replica), or the stream reused
//     the sequence after losing it.
//
// A read-back that could not be read in full makes the verdict unknown
// unless an anomaly is found in what was read (missing messages are then
// not judged).
//
// Counts: keys, final_entries, and the five above.
type Retention struct {
	opts  checker.Options
	final Final
}

// NewRetention returns the read-back checker for final.
func NewRetention(opts checker.Options, final Final) *Retention {
	return &Retention{opts: opts.WithDefaults(), final: final}
}

// Name implements Checker.
func (*Retention) Name() string { return NameRetention }

// Check implements Checker.
func (c *Retention) Check(h history.History) checker.Result {
	counts := map[string]int{CountKeys: 0, "final_entries": len(c.final.Entries), CountLastValueLost: 0,
		CountRetainedMissing: 0, CountRetainedExtra: 0, CountRetainedChanged: 0, CountSeqConflict: 0}
	ex := checker.NewExamples(c.opts.MaxExamples)
	add := func(kind, key, desc string, entries ...history.Entry) {
		counts[kind]++
		ex.Add(checker.Anomaly{Kind: kind, Key: key, Description: desc, Entries: entries})
	}
	for _, e := range c.final.Conflicts {
		d := fmt.Sprintf("seq %d was delivered again as %s", e.Seq, describeSlot(e, true))
		if first := observedAt(c.final.Observed, e.Seq); first != nil {
			d += fmt.Sprintf(" after %s", describeSlot(*first, true))
		}
		add(CountSeqConflict, e.Key, d, e)
	}
	known := make(map[uint64]history.Entry, len(c.final.Observed)+len(c.final.Entries))
	for i := range h.Ops {
		o := &h.Ops[i]
		if isClientOp(o) && o.IsWrite() && o.Outcome == history.OK && o.Rev > 0 {
			known[o.Rev] = history.Entry{Seq: o.Rev, Key: o.Key, Value: o.Value, Operation: o.MarkerOperation()}
		}
	}
	for _, e := range c.final.Observed {
		known[e.Seq] = e
	}
	inFinal := make(map[uint64]bool, len(c.final.Entries))
	for _, e := range c.final.Entries {
		inFinal[e.Seq] = true
		if o, ok := known[e.Seq]; ok && o != e {
			if seen := observedAt(c.final.Observed, e.Seq); seen != nil && *seen != e {
				add(CountRetainedChanged, e.Key, fmt.Sprintf("seq %d read back as %s, but the observers saw %s there",
					e.Seq, describeSlot(e, true), describeSlot(*seen, true)), *seen, e)
			}
		}
		known[e.Seq] = e
	}
	// One slice by key and sequence, not a slice per key: a key of a
	// long run grows its own slice by doubling, and holds every old copy.
	all := make([]history.Entry, 0, len(known))
	for _, e := range known {
		all = append(all, e)
	}
	known = nil
	sort.Slice(all, func(a, b int) bool {
		if all[a].Key != all[b].Key {
			return all[a].Key < all[b].Key
		}
		return all[a].Seq < all[b].Seq
	})
	for i := 0; i < len(all); {
		j := i + 1
		for j < len(all) && all[j].Key == all[i].Key {
			j++
		}
		counts[CountKeys]++
		c.judgeKey(all[i].Key, all[i:j], inFinal, add)
		i = j
	}
	return retentionResult(c.Name(), counts, ex, c.final)
}

// judgeKey checks one key's read-back against its known messages es.
func (c *Retention) judgeKey(key string, es []history.Entry, inFinal map[uint64]bool, add func(kind, key, desc string, entries ...history.Entry)) {
	sort.Slice(es, func(a, b int) bool { return es[a].Seq < es[b].Seq })
	// What should be gone is judged against the key's messages up to the
	// newest the read-back holds: a later one missing from it never
	// removed anything there (the read-back is of a stream that did not
	// keep it), and its loss is its own anomaly (last_value_lost).
	held := -1
	for i, e := range es {
		if inFinal[e.Seq] {
			held = i
		}
	}
	p := uint64(0)
	for _, e := range es[:held+1] {
		if e.Operation == "purge" {
			p = e.Seq
		}
	}
	for i, e := range es[:held+1] {
		if !inFinal[e.Seq] {
			continue
		}
		later := held - i
		switch {
		case e.Seq < p:
			add(CountRetainedExtra, key, fmt.Sprintf("seq %d (%s) is still there, but the purge at seq %d removed it",
				e.Seq, describeSlot(e, true), p), e)
		case c.final.PerKey > 0 && later >= c.final.PerKey:
			add(CountRetainedExtra, key, fmt.Sprintf("seq %d (%s) is still there, but %d later revisions of %s were stored and the stream keeps %d",
				e.Seq, describeSlot(e, true), later, key, c.final.PerKey), e)
		}
	}
	if !c.final.Complete {
		return
	}
	last := es[len(es)-1]
	if !inFinal[last.Seq] {
		add(CountLastValueLost, key, fmt.Sprintf("the newest revision of %s, seq %d (%s), is not in the stream read back after the heal",
			key, last.Seq, describeSlot(last, true)), last)
		return
	}
	if c.final.PerKey == 0 {
		for _, e := range es {
			if e.Seq >= p && !inFinal[e.Seq] {
				add(CountRetainedMissing, key, fmt.Sprintf("seq %d (%s) is not in the stream read back, which keeps every revision",
					e.Seq, describeSlot(e, true)), e)
			}
		}
	}
}

func observedAt(stream []history.Entry, seq uint64) *history.Entry {
	i := sort.Search(len(stream), func(i int) bool { return stream[i].Seq >= seq })
	if i < len(stream) && stream[i].Seq == seq {
		return &stream[i]
	}
	return nil
}

func retentionResult(name string, counts map[string]int, ex *checker.Examples, final Final) checker.Result {
	r := checker.Result{Name: name, Counts: counts, Anomalies: ex.List(), Part: &partState{incomplete: !final.Complete, torn: final.Torn}}
	retentionFinish(&r, final.PerKey)
	return r
}

// finish implements finisher.
func (c *Retention) finish(r *checker.Result) { retentionFinish(r, c.final.PerKey) }

func retentionFinish(r *checker.Result, perKey int) {
	counts := r.Counts
	var found []string
	for _, k := range []string{CountLastValueLost, CountRetainedMissing, CountRetainedExtra, CountRetainedChanged, CountSeqConflict} {
		if counts[k] > 0 {
			found = append(found, fmt.Sprintf("%d %s", counts[k], k))
		}
	}
	keep := "every revision"
	if perKey > 0 {
		keep = fmt.Sprintf("%d revision(s) per key", perKey)
	}
	switch {
	case len(found) > 0:
		r.Verdict = checker.Invalid
		r.Summary = strings.Join(found, ", ") + fmt.Sprintf(" in the read-back of %d keys (the stream keeps %s)", counts[CountKeys], keep)
	case partOf(*r).incomplete:
		r.Verdict = checker.Unknown
		r.Reason = fmt.Sprintf("the stream could not be read back in full (%d entries read%s): lost last values cannot be ruled out",
			counts["final_entries"], checker.TornNote(partOf(*r).torn))
		r.Summary = r.Reason
	default:
		r.Verdict = checker.Valid
		r.Summary = fmt.Sprintf("the read-back holds what it must for all %d keys (the stream keeps %s)", counts[CountKeys], keep)
	}
}

func describeSlot(e history.Entry, ok bool) string {
	if !ok {
		return "nothing"
	}
	return e.Describe()
}
