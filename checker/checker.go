// Package checker judges a recorded history.History. Each Checker looks for
// one named anomaly and answers valid, invalid or unknown, with counts, a
// capped list of examples and a one-line summary; Run collects the Results
// that go into results.json.
//
// Every checker is linear or n log n in the number of ops, so a history of
// a million ops is checked in seconds. The linearizability checker is the
// exception in theory (porcupine's search is exponential in the worst case)
// and is bounded by Options.Timeout.
//
// # Real-time order and ties
//
// Every checker orders ops by one rule, porcupine's: op A precedes op B
// only if A completed strictly before B was invoked (A.Complete <
// B.Invoke); ops with equal timestamps are concurrent, and so is a
// zero-length op (Invoke == Complete) with every op in flight at that
// instant. Porcupine sorts a call before a return at the same time
// (porcupine's checker.go, byTime), which is this rule. The checkers use
// precedes for it; the linearizability checker hands porcupine scaled
// times (scaleCall, scaleRet) that keep it.
//
// A client's own ops are in program order: by invoke time, ties in
// history order (the order they completed in, as recorded). That order
// only says which get supplied an update's expected revision; whether one
// op could have observed another is always decided by precedes.
//
// # Input
//
// Every checker first validates the history (Validate): a malformed one (a
// completion before its invocation, an unknown type, an ok write without
// its revision...) gets an unknown verdict whose reason names the bad line,
// never a verdict.
//
// # Long histories
//
// Every checker judges one key at a time (or one client and key), so a
// history too long to hold whole is judged in parts: a workload cuts it by
// key (history.Split; Options.PartOps says when), runs the checkers on
// each part in turn and puts their results together with Merge. The
// verdicts, counts and summaries are the whole history's
// (TestPartsMatchWhole; merge.go says what a part needs of the whole, and
// when a history cannot be cut). The check then holds one part at a time:
// its memory is bounded by the largest part, never by the run's length,
// unless one key alone is that long (a part cannot split a key).
package checker

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// Verdict is a checker's answer.
type Verdict string

const (
	Valid   Verdict = "valid"   // the anomaly was looked for and not found
	Invalid Verdict = "invalid" // the anomaly was found
	Unknown Verdict = "unknown" // the checker could not decide; never read it as valid
)

// Checker looks at a history for one kind of anomaly.
type Checker interface {
	Name() string
	Check(h history.History) Result
}

// Result is what a checker found. It is JSON-serializable as is.
type Result struct {
	Name    string  `json:"name"`
	Verdict Verdict `json:"verdict"`
	// Summary is one line a person understands.
	Summary string `json:"summary"`
	// Reason says why the verdict is unknown.
	Reason string `json:"reason,omitempty"`
	// Counts holds the checker's tallies; each checker documents its keys.
	Counts map[string]int `json:"counts"`
	// Stats holds fractions and percentiles.
	Stats map[string]float64 `json:"stats,omitempty"`
	// Histograms holds distributions, by name.
	Histograms map[string][]Bucket `json:"histograms,omitempty"`
	// Anomalies are examples, at most Options.MaxExamples of each kind.
	Anomalies []Anomaly `json:"anomalies,omitempty"`
	// Files are the paths the checker wrote.
	Files []string `json:"files,omitempty"`
	// InternalErrors are disagreements between a checker's own methods
	// (e.g. the interval bounds refute a piece porcupine finds
	// linearizable): bugs in the checker, never a verdict. What they touch
	// is left undecided.
	InternalErrors []string `json:"internal_errors,omitempty"`
	ElapsedMs      float64  `json:"elapsed_ms"`
	// part is what Merge needs to put the results of parts together.
	part *partState
}

// Bucket is one bar of a histogram: Count values v with previous bucket's
// Upper < v <= Upper. The last bucket is open-ended and has Open set.
type Bucket struct {
	Label string  `json:"label"`
	Upper float64 `json:"upper,omitempty"`
	Open  bool    `json:"open,omitempty"`
	Count int     `json:"count"`
}

// Anomaly is one example of what a checker found.
type Anomaly struct {
	Kind        string          `json:"kind"`
	Key         string          `json:"key,omitempty"`
	Description string          `json:"description"`
	Ops         []OpRef         `json:"ops,omitempty"`
	Entries     []history.Entry `json:"entries,omitempty"` // stream entries involved
	File        string          `json:"file,omitempty"`
	// rank orders examples of a kind across parts (Merge): highest first.
	rank float64
}

// OpRef is an op with its position in History.Ops (0-based; the line of
// history.jsonl is Index+1).
type OpRef struct {
	Index int `json:"index"`
	history.Op
}

// Options configures the checkers. The zero value is usable.
type Options struct {
	// OutDir is where checkers write files (porcupine visualizations). It
	// is created when needed. Empty: no files are written.
	OutDir string
	// Timeout bounds the linearizability check as a whole (0: 60s;
	// negative: no bound). When it runs out, keys not yet decided make the
	// verdict unknown.
	Timeout time.Duration
	// MaxExamples caps the examples kept per anomaly kind (0: 10).
	MaxExamples int
	// MaxVisualizations caps the porcupine HTML files written (0: 5;
	// negative: none).
	MaxVisualizations int
	// ChunkOps is the smallest sub-history the linearizability checker
	// hands to porcupine when it can cut a key's history (0: 200). Smaller
	// chunks make smaller visualizations; the verdict does not depend on it.
	ChunkOps int
	// Workers bounds parallel porcupine searches (0: GOMAXPROCS).
	Workers int
	// PartOps is the longest history a workload's check holds in memory
	// whole; a longer one it cuts by key into parts of about this many ops
	// and judges one part at a time (history.Split, Merge). 0:
	// DefaultPartOps; negative: never cut.
	PartOps int
}

// DefaultPartOps is Options.PartOps when it is 0.
const DefaultPartOps = 1_000_000

func (o Options) withDefaults() Options {
	if o.Timeout == 0 {
		o.Timeout = 60 * time.Second
	}
	if o.MaxExamples <= 0 {
		o.MaxExamples = 10
	}
	if o.MaxVisualizations == 0 {
		o.MaxVisualizations = 5
	}
	if o.ChunkOps <= 0 {
		o.ChunkOps = 200
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.PartOps == 0 {
		o.PartOps = DefaultPartOps
	}
	return o
}

// All returns every checker, in the order they are reported.
func All(opts Options) []Checker {
	return []Checker{
		NewSession(opts),
		NewStaleRead(opts),
		NewAttribution(opts),
		NewIntegrity(opts),
		NewLinearizability(opts),
	}
}

// Run runs the checkers one after the other on h. A checker that panics
// yields an unknown result naming the panic instead of killing the run.
func Run(h history.History, checkers []Checker) []Result {
	out := make([]Result, 0, len(checkers))
	for _, c := range checkers {
		out = append(out, runOne(h, c))
	}
	return out
}

func runOne(h history.History, c Checker) Result {
	return Guard(c.Name(), func() Result { return c.Check(h) })
}

// Guard runs one check, of any workload, so that it cannot kill the run or
// leave a gap: a check that panics yields an unknown result naming the
// panic (and the stack goes to stderr, since a panic is our bug); a result
// without a name or verdict gets name and unknown; ElapsedMs is the time
// the check took. Every workload's checks run under it (the kv checkers
// through Run).
func Guard(name string, check func() Result) (r Result) {
	start := time.Now()
	defer func() {
		if p := recover(); p != nil {
			fmt.Fprintf(os.Stderr, "checker %s panicked: %v\n%s", name, p, debug.Stack())
			r = Result{Name: name, Verdict: Unknown, Counts: map[string]int{},
				Reason:  fmt.Sprintf("checker panicked: %v", p),
				Summary: fmt.Sprintf("checker failed: %v", p)}
		}
		if r.Name == "" {
			r.Name = name
		}
		if r.Verdict == "" {
			r.Verdict = Unknown
			if r.Reason == "" {
				r.Reason = "the checker returned no verdict"
			}
		}
		r.ElapsedMs = float64(time.Since(start).Microseconds()) / 1000
	}()
	return check()
}

// Worst is the verdict of a set of results: invalid if any is invalid, else
// unknown if any is unknown or there are none, else valid.
func Worst(results []Result) Verdict {
	if len(results) == 0 {
		return Unknown
	}
	w := Valid
	for _, r := range results {
		switch r.Verdict {
		case Invalid:
			return Invalid
		case Valid:
		default:
			w = Unknown
		}
	}
	return w
}

// examples keeps at most max anomalies of each kind.
type examples struct {
	max    int
	byKind map[string]int
	list   []Anomaly
}

func newExamples(max int) *examples { return &examples{max: max, byKind: map[string]int{}} }

// want reports whether one more example of kind would be kept, so callers
// can skip building descriptions they would throw away.
func (e *examples) want(kind string) bool { return e.byKind[kind] < e.max }

func (e *examples) add(a Anomaly) {
	if !e.want(a.Kind) {
		return
	}
	e.byKind[a.Kind]++
	e.list = append(e.list, a)
}

// refs builds OpRefs for op indices; negative and repeated indices are
// skipped.
func refs(ops []history.Op, idx ...int) []OpRef {
	out := make([]OpRef, 0, len(idx))
	for n, i := range idx {
		if slices.Contains(idx[:n], i) {
			continue
		}
		if i >= 0 && i < len(ops) {
			out = append(out, OpRef{Index: i, Op: ops[i]})
		}
	}
	return out
}

// precedes reports whether an op that completed at complete precedes, in
// real time, an op invoked at invoke: only when strictly earlier. Equal
// timestamps are concurrent (see the package doc).
func precedes(complete, invoke int64) bool { return complete < invoke }

// isClientOp reports whether the op is a client operation a checker should
// look at (fault records are not).
func isClientOp(o *history.Op) bool {
	return o.Type != history.Fault && o.Client != history.NemesisClient
}

// errCode is the JetStream code of a wrong-last-sequence rejection, taken
// from ErrCode or, when that is missing, from the kind.
func errCode(o *history.Op) int {
	if o.ErrCode != 0 {
		return o.ErrCode
	}
	switch o.Err {
	case history.ErrWrongLastSeq:
		return 10071
	case history.ErrWrongLastSeqAny:
		return 10164
	}
	return 0
}

func ms(ns int64) float64 { return float64(ns) / 1e6 }

// percentile is the nearest-rank percentile of sorted values.
func percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(p/100*float64(len(sorted))+0.999999) - 1
	if i < 0 {
		i = 0
	}
	if i >= len(sorted) {
		i = len(sorted) - 1
	}
	return sorted[i]
}

// histogram counts sorted-or-not values into buckets with the given upper
// bounds plus one open bucket; unit labels the bounds.
func histogram(values []float64, bounds []float64, unit string) []Bucket {
	out := make([]Bucket, len(bounds)+1)
	for i, b := range bounds {
		out[i] = Bucket{Label: fmt.Sprintf("<=%g%s", b, unit), Upper: b}
	}
	out[len(bounds)] = Bucket{Label: fmt.Sprintf(">%g%s", bounds[len(bounds)-1], unit), Open: true}
	for _, v := range values {
		i := sort.SearchFloat64s(bounds, v) // first bound >= v
		out[i].Count++
	}
	return out
}

func pct(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return 100 * float64(n) / float64(of)
}
