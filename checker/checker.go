// Package checker is what every workload's checks share: a check's Result
// (verdict valid, invalid or unknown, counts, capped examples, a one-line
// summary), the Options a check is judged with, Guard, which runs any
// check so that a panic becomes an unknown result naming it, and Worst,
// the verdict of a set. kv-update's checkers are in package kvcheck below
// it; other workloads keep theirs in their own package.
package checker

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
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
	// Part is what a checker of kv-update needs to put the results of
	// the parts of a history judged in parts together (kvcheck.Merge);
	// never stored.
	Part any `json:"-"`
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
	// Rank orders examples of a kind across parts (kvcheck.Merge):
	// highest first; never stored.
	Rank float64 `json:"-"`
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

// WithDefaults fills the zero fields with the defaults above.
func (o Options) WithDefaults() Options {
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
