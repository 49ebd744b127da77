package kvcheck

import (
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
)

// A long run's history is judged in parts (history.Split): every key's ops
// and stream entries in one part, one part in memory at a time. Every
// check here judges one key at a time, or one client and key, so the
// parts' counts add up to the whole history's, and Merge adds them up.
// Some checks also look the stream up by sequence, which all keys share;
// a part knows what that needs of the whole (history.Part): the
// acknowledged revisions, which bound when an indeterminate write can have
// returned, and the stream's sequences, which say whether one is missing
// between two of a key's messages. A history in which keys of two parts
// hold or read one sequence (itself an anomaly: a sequence reused, a
// revision acknowledged twice) is not cut but judged whole
// (Split.Crossed).
//
// What still differs: a value stored under two keys is a duplicate_value
// in the whole history's check and an unexpected_value in the parts'
// (the verdict is the same), and the examples are picked per part, so a
// merged result may keep other examples than the whole check would.

// finisher is a checker whose verdict, reason and summary follow from its
// Result's counts and part state alone, so that Merge can make them again
// for the parts together.
type finisher interface {
	Checker
	finish(r *checker.Result)
}

// partOf is what r keeps for Merge (checker.Result.Part), nil when it
// keeps none.
func partOf(r checker.Result) *partState {
	p, _ := r.Part.(*partState)
	return p
}

// partState is what a checker keeps in its Result, beyond the JSON, for
// Merge to put parts together.
type partState struct {
	// sets are names counted once across parts (a client may use keys in
	// several parts).
	sets map[string][]string
	// lists are names in the order found (keys not linearizable).
	lists map[string][]string
	// samples are measurements whose percentiles the result reports.
	samples map[string][]float64
	// incomplete: the part's stream could not be read in full.
	incomplete bool
	// torn is the line of stream.jsonl cut short, or 0 (the same in
	// every part).
	torn int
	// lastUnknown: the stream is incomplete and its last sequence unknown
	// (the same in every part); notes are the lowest undecided judgements
	// that need a sequence nobody saw (stream-integrity).
	lastUnknown bool
	notes       []seqNote
}

func (p *partState) set(name string, v []string) {
	if p.sets == nil {
		p.sets = map[string][]string{}
	}
	p.sets[name] = v
}

func (p *partState) list(name string, v []string) {
	if p.lists == nil {
		p.lists = map[string][]string{}
	}
	p.lists[name] = v
}

func (p *partState) sample(name string, v []float64) {
	if p.samples == nil {
		p.samples = map[string][]float64{}
	}
	p.samples[name] = v
}

func (p *partState) add(q *partState) {
	for k, v := range q.sets {
		p.set(k, append(p.sets[k], v...))
	}
	for k, v := range q.lists {
		p.list(k, append(p.lists[k], v...))
	}
	for k, v := range q.samples {
		p.sample(k, append(p.samples[k], v...))
	}
	p.incomplete = p.incomplete || q.incomplete
	p.torn = max(p.torn, q.torn)
	p.lastUnknown = p.lastUnknown || q.lastUnknown
	p.notes = lowestNotes(append(p.notes, q.notes...))
	for k, v := range p.sets {
		slices.Sort(v)
		p.sets[k] = slices.Compact(v)
	}
}

// maxCounts are the counts that are a maximum, not a sum.
var maxCounts = map[string]bool{"max_piece_ops": true, CountUnseenSeqs: true}

// Merge puts together the results c gave on the parts of one history, as
// if c had judged the whole: counts added up, examples kept as the whole
// check keeps them (at most opts.MaxExamples of a kind, the highest ranked
// first), and the verdict and summary made again from the sums. index[p]
// maps part p's op positions to the whole history's (history.Split.Index),
// so the examples name the whole history's ops. A part that could not be
// judged leaves the whole undecided.
func Merge(c Checker, opts checker.Options, parts []checker.Result, index [][]int32) checker.Result {
	opts = opts.WithDefaults()
	r := checker.Result{Name: c.Name(), Counts: map[string]int{}, Part: &partState{}}
	f, ok := c.(finisher)
	if !ok {
		return checker.Result{Name: c.Name(), Verdict: checker.Unknown, Counts: map[string]int{},
			Reason: "this check cannot be judged in parts", Summary: "this check cannot be judged in parts"}
	}
	for p := range parts {
		pr := parts[p]
		r.ElapsedMs += pr.ElapsedMs
		if partOf(pr) == nil {
			reason := fmt.Sprintf("part %d of %d could not be judged: %s", p+1, len(parts), pr.Reason)
			return checker.Result{Name: c.Name(), Verdict: checker.Unknown, Counts: map[string]int{}, Reason: reason, Summary: reason,
				ElapsedMs: r.ElapsedMs}
		}
		for k, v := range pr.Counts {
			if maxCounts[k] {
				r.Counts[k] = max(r.Counts[k], v)
			} else {
				r.Counts[k] += v
			}
		}
		partOf(r).add(partOf(pr))
		for _, a := range pr.Anomalies {
			a.Ops = slices.Clone(a.Ops)
			for i := range a.Ops {
				if p < len(index) && a.Ops[i].Index >= 0 && a.Ops[i].Index < len(index[p]) {
					a.Ops[i].Index = int(index[p][a.Ops[i].Index])
				}
			}
			r.Anomalies = append(r.Anomalies, a)
		}
		r.Files = append(r.Files, pr.Files...)
		r.InternalErrors = append(r.InternalErrors, pr.InternalErrors...)
	}
	sort.SliceStable(r.Anomalies, func(a, b int) bool { return r.Anomalies[a].Rank > r.Anomalies[b].Rank })
	ex := checker.NewExamples(opts.MaxExamples)
	for _, a := range r.Anomalies {
		ex.Add(a)
	}
	r.Anomalies = ex.List()
	f.finish(&r)
	return r
}

// PartOptions are the options for judging the next part of a split
// history when the parts before it gave done: the rest of the
// linearizability timeout and of the visualizations.
func PartOptions(opts checker.Options, done []checker.Result) checker.Options {
	o := opts.WithDefaults()
	for _, r := range done {
		if o.Timeout > 0 && r.Name == NameLinearizability {
			o.Timeout -= time.Duration(r.ElapsedMs * float64(time.Millisecond))
			if o.Timeout <= 0 {
				o.Timeout = time.Nanosecond // spent: what is left undecided is unknown
			}
		}
		if o.MaxVisualizations > 0 {
			if o.MaxVisualizations -= len(r.Files); o.MaxVisualizations <= 0 {
				o.MaxVisualizations = -1
			}
		}
	}
	return o
}
