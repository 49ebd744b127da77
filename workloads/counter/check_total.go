package counter

import (
	"fmt"
	"sort"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// The checks' names.
const (
	CheckTotal  = "counter-total"
	CheckDedupe = "counter-dedupe"
)

// tally is one counter's adds against its final value: target is what the
// indeterminate adds must make up (final minus the acknowledged sum).
type tally struct {
	counter       string
	final, acked  int64
	nAcked        int
	indeterminate []int64
	target        int64
	sums          map[int64]bool // nil: too many to search
	sizes         map[int64]bool // the deltas of its adds that may have applied
	retried       []Add          // retried adds that could have been applied twice
	refused       []Add          // adds every attempt of which was refused for sure
}

// tallies groups the adds by counter, in name order, each counter that
// has adds or a final value once.
func tallies(adds []Add, final Final) []*tally {
	by := map[string]*tally{}
	get := func(c string) *tally {
		if by[c] == nil {
			by[c] = &tally{counter: c, final: final.Values[c], sizes: map[int64]bool{}}
		}
		return by[c]
	}
	for c := range final.Values {
		get(c)
	}
	for _, a := range adds {
		t := get(a.Counter)
		switch a.Outcome {
		case history.OK:
			t.acked += a.Delta
			t.nAcked++
		case history.Info:
			t.indeterminate = append(t.indeterminate, a.Delta)
		default:
			t.refused = append(t.refused, a) // refused for sure: never applied
			continue
		}
		t.sizes[a.Delta] = true
		if a.Attempts > 1 {
			t.retried = append(t.retried, a)
		}
	}
	out := make([]*tally, 0, len(by))
	for _, t := range by {
		t.target = t.final - t.acked
		t.sums, _ = subsetSums(t.indeterminate)
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].counter < out[j].counter })
	return out
}

// counted are the refused adds whose delta makes the total come out: an
// add the server answered with a refusal and counted all the same.
func (t *tally) counted() []Add {
	var out []Add
	for _, a := range t.refused {
		if t.explains(t.target - a.Delta) {
			out = append(out, a)
		}
	}
	return out
}

// refusedCounted names the refused adds that would each explain the total.
func refusedCounted(t *tally, adds []Add) checker.Anomaly {
	a := adds[0]
	s := fmt.Sprintf("counter %s is %d: %d more than its acknowledged adds (%d)", t.counter, t.final, t.target, t.acked)
	if len(t.indeterminate) > 0 {
		s += " and some of its indeterminate ones"
	}
	s += fmt.Sprintf(" allow, exactly add %s (%+d), which was refused", a.ID, a.Delta)
	if a.ErrCode != 0 {
		s += fmt.Sprintf(" with error %d", a.ErrCode)
	}
	if a.ErrMsg != "" {
		s += fmt.Sprintf(" (%q)", a.ErrMsg)
	} else if a.Err != "" {
		s += fmt.Sprintf(" (%s)", a.Err)
	}
	s += ": the server counted an add it answered with a refusal"
	if len(adds) > 1 {
		s += fmt.Sprintf("; %d other refused adds would each explain it as well", len(adds)-1)
	}
	an := checker.Anomaly{Key: t.counter, Description: s}
	for _, x := range adds {
		if x.Op >= 0 {
			an.Ops = append(an.Ops, checker.OpRef{Index: x.Op})
		}
	}
	return an
}

// explains says whether the indeterminate adds can make up target.
func (t *tally) explains(target int64) bool { return t.sums[target] }

// doubled are the retried adds one more application of which makes the
// total come out: an add applied twice.
func (t *tally) doubled() []Add {
	var out []Add
	for _, a := range t.retried {
		if t.explains(t.target - a.Delta) {
			out = append(out, a)
		}
	}
	return out
}

// read says whether the counter's final value is known: a counter with
// no value is 0 only when every counter was read.
func read(t *tally, final Final) bool {
	_, ok := final.Values[t.counter]
	return ok || final.Complete
}

// Total is counter-total: after the heal each counter equals the sum of
// its acknowledged adds plus some subset of its indeterminate ones (with
// none indeterminate, exactly). A difference that one retried add counted
// twice explains is counter-dedupe's to report, not this check's. Unknown
// for a counter not read, or with too many indeterminate adds to search.
func Total(adds []Add, final Final, maxExamples int) checker.Result {
	b := checker.NewBuilder(CheckTotal, maxExamples)
	for _, t := range tallies(adds, final) {
		switch {
		case !read(t, final):
			b.Unsure("unread", fmt.Sprintf("counter %s was not read after the heal: %s", t.counter, final.Detail), nil)
		case t.sums == nil:
			b.Unsure("undecidable", fmt.Sprintf("counter %s has %d indeterminate adds, too many subsets to search", t.counter, len(t.indeterminate)), nil)
		case t.explains(t.target) && len(t.indeterminate) == 0:
			b.Counts["exact"]++
		case t.explains(t.target):
			b.Counts["within"]++
		case len(t.doubled()) > 0:
			b.Counts["applied_twice"]++ // counter-dedupe names it
		case len(t.counted()) > 0:
			b.Flag("refused_counted", func() checker.Anomaly { return refusedCounted(t, t.counted()) })
		default:
			b.Flag("off", func() checker.Anomaly { return checker.Anomaly{Key: t.counter, Description: t.off()} })
		}
	}
	b.Summarize(fmt.Sprintf("%d counters are off the sum of their adds, %d of them by exactly an add that was refused",
		b.Counts["off"]+b.Counts["refused_counted"], b.Counts["refused_counted"]),
		fmt.Sprintf("%d counters exact, %d within their indeterminate adds", b.Counts["exact"], b.Counts["within"]))
	if n := b.Counts["applied_twice"]; n > 0 && b.Result.Verdict == checker.Valid {
		b.Result.Summary += fmt.Sprintf("; %d off by an add applied twice (counter-dedupe)", n)
	}
	return b.Result
}

// off says how far a counter is from the nearest total its adds allow, in
// units and, when its adds are all of one size, in adds.
func (t *tally) off() string {
	nearest, best := int64(0), int64(-1)
	for s := range t.sums {
		if d := abs(t.target - s); best < 0 || d < best || (d == best && s < nearest) {
			nearest, best = s, d
		}
	}
	units := t.target - nearest
	s := fmt.Sprintf("counter %s is %d; its %d acknowledged adds sum to %d", t.counter, t.final, t.nAcked, t.acked)
	if len(t.indeterminate) > 0 {
		s += fmt.Sprintf(" and its %d indeterminate adds can add at most %d to that", len(t.indeterminate), maxExtra(t.indeterminate))
	}
	s += fmt.Sprintf(": %+d off the nearest total they allow (%d)", units, t.acked+nearest)
	if d, ok := oneSize(t); ok && units%d == 0 {
		s += fmt.Sprintf(", %+d adds of %d", units/d, d)
	}
	return s
}

// oneSize is the size of every add of the counter, if they share one.
func oneSize(t *tally) (int64, bool) {
	if len(t.sizes) != 1 {
		return 0, false
	}
	for d := range t.sizes {
		return d, d != 0
	}
	return 0, false
}

func maxExtra(ds []int64) int64 {
	var s int64
	for _, d := range ds {
		if d > 0 {
			s += d
		}
	}
	return s
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// Dedupe is counter-dedupe: no add is applied twice. A counter whose
// total no subset of its indeterminate adds explains, but one more
// application of a retried add does, names that add (or the adds that
// each would): the server applied a publish it had already applied under
// the same Nats-Msg-Id. Unknown for a counter not read or not searchable.
func Dedupe(adds []Add, final Final, maxExamples int) checker.Result {
	b := checker.NewBuilder(CheckDedupe, maxExamples)
	retried := 0
	for _, t := range tallies(adds, final) {
		retried += len(t.retried)
		switch {
		case !read(t, final):
			b.Unsure("unread", fmt.Sprintf("counter %s was not read after the heal: %s", t.counter, final.Detail), nil)
		case t.sums == nil:
			b.Unsure("undecidable", fmt.Sprintf("counter %s has %d indeterminate adds, too many subsets to search", t.counter, len(t.indeterminate)), nil)
		case t.explains(t.target):
		default:
			if d := t.doubled(); len(d) > 0 {
				b.Flag("applied_twice", func() checker.Anomaly { return twice(t, d) })
			}
		}
	}
	b.Counts["retried"] = retried
	b.Summarize(fmt.Sprintf("%d counters hold an add applied twice", b.Counts["applied_twice"]),
		fmt.Sprintf("%d retried adds, none applied twice", retried))
	return b.Result
}

func twice(t *tally, d []Add) checker.Anomaly {
	ids := make([]string, 0, min(len(d), 5))
	var ops []checker.OpRef
	for i, a := range d {
		if i == 5 {
			ids = append(ids, fmt.Sprintf("and %d more", len(d)-5))
			break
		}
		ids = append(ids, fmt.Sprintf("%s (%+d, %d attempts)", a.ID, a.Delta, a.Attempts))
		if a.Op >= 0 {
			ops = append(ops, checker.OpRef{Index: a.Op})
		}
	}
	which := "add " + ids[0] + " counted twice"
	if len(d) > 1 {
		which = "one of the adds " + strings.Join(ids, ", ") + " counted twice"
	}
	return checker.Anomaly{Key: t.counter, Ops: ops, Description: fmt.Sprintf("counter %s is %d; its adds allow that only with %s",
		t.counter, t.final, which)}
}
