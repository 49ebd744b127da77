package record

// The exit-code policy of a run: its verdict once known anomalies are
// excused (--expect), and the process exit code that follows. Reports show
// the judged result; they do not decide it.

import (
	"fmt"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
)

// Expectation marks a known anomaly in some cells, so that a nightly run can
// keep them as a positive control and still be green: "direct-get-on=
// stale-reads" says the cells named direct-get-on (a path.Match pattern
// over cell names, e.g. "*direct-get-on") are expected to show stale reads.
//
// In a matched cell, the checkers the anomaly explains may be invalid
// without failing; everything else must pass as usual, unknown stays a
// failure, and if the anomaly is not found at all that is a failure too
// (the control did not reproduce: the checker is broken, or the server
// changed and the expectation must go).
type Expectation struct {
	Cells   string `json:"cells"`
	Anomaly string `json:"anomaly"`
}

// String is the expectation as --expect takes it: CELLS=ANOMALY.
func (e Expectation) String() string { return e.Cells + "=" + e.Anomaly }

// Checks are a cell's checks by name.
type Checks map[string]*checker.Result

// ChecksOf indexes a cell's checks by name.
func ChecksOf(c CellResult) Checks {
	m := Checks{}
	for i := range c.Checks {
		m[c.Checks[i].Name] = &c.Checks[i]
	}
	return m
}

// Count is a check's count, 0 when the check did not run.
func (m Checks) Count(check, key string) int {
	if r := m[check]; r != nil {
		return r.Counts[key]
	}
	return 0
}

// KnownAnomaly is an anomaly --expect accepts, with the checks it makes
// invalid. A workload registers its own (RegisterAnomaly) next to its
// checks: kv-update's stale reads under Direct Get, say.
type KnownAnomaly struct {
	// Name is what --expect takes after "=": "stale-reads".
	Name string
	// Doc is the note an excused check carries: what the anomaly is and
	// which checks it fails.
	Doc string
	// Explains says whether check's invalid verdict follows from the
	// anomaly, given the cell's checks.
	Explains func(m Checks, check string) bool
	// Found says whether the cell shows the anomaly at all.
	Found func(m Checks) bool
	// Witness is the check that proves it: valid there while expected is
	// a failure (the control did not reproduce).
	Witness string
}

var (
	anomaliesMu    sync.RWMutex
	knownAnomalies = map[string]KnownAnomaly{}
)

// RegisterAnomaly makes an anomaly known to --expect. It panics on a name
// registered twice or a missing function: programming errors found at
// start.
func RegisterAnomaly(k KnownAnomaly) {
	anomaliesMu.Lock()
	defer anomaliesMu.Unlock()
	if _, dup := knownAnomalies[k.Name]; dup || k.Name == "" || k.Explains == nil || k.Found == nil || k.Witness == "" {
		panic(fmt.Sprintf("record: anomaly %q registered twice or incomplete", k.Name))
	}
	knownAnomalies[k.Name] = k
}

func knownAnomaly(name string) (KnownAnomaly, bool) {
	anomaliesMu.RLock()
	defer anomaliesMu.RUnlock()
	k, ok := knownAnomalies[name]
	return k, ok
}

// KnownAnomalyNames lists the names ParseExpect accepts.
func KnownAnomalyNames() []string {
	anomaliesMu.RLock()
	defer anomaliesMu.RUnlock()
	var out []string
	for k := range knownAnomalies {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// ParseExpect reads CELLS=ANOMALY, e.g. "direct-get-on=stale-reads".
func ParseExpect(s string) (Expectation, error) {
	cells, anomaly, ok := strings.Cut(strings.TrimSpace(s), "=")
	if !ok || cells == "" || anomaly == "" {
		return Expectation{}, fmt.Errorf("--expect %q: want CELLS=ANOMALY, e.g. direct-get-on=stale-reads", s)
	}
	if _, err := path.Match(cells, ""); err != nil {
		return Expectation{}, fmt.Errorf("--expect %q: bad cell pattern: %v", s, err)
	}
	if _, ok := knownAnomaly(anomaly); !ok {
		return Expectation{}, fmt.Errorf("--expect %q: unknown anomaly %q (known: %s)", s, anomaly, strings.Join(KnownAnomalyNames(), ", "))
	}
	return Expectation{Cells: cells, Anomaly: anomaly}, nil
}

// ParseExpects parses every value of a repeated --expect flag.
func ParseExpects(values []string) ([]Expectation, error) {
	var out []Expectation
	for _, v := range values {
		e, err := ParseExpect(v)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// Judged is a checker result seen through the expectations.
type Judged struct {
	checker.Result
	Effective checker.Verdict // what counts for CI
	Expected  string          // the expectation that excused or failed it
	Note      string
}

// JudgedCell is a cell seen through the expectations.
type JudgedCell struct {
	CellResult
	Checks    []Judged
	Verdict   Verdict // effective verdict
	Expected  []Expectation
	Reproduce string // non-empty: an expected anomaly was not found
}

// Judge applies the expectations that match the cell.
func Judge(c CellResult, exps []Expectation) JudgedCell {
	j := JudgedCell{CellResult: c, Verdict: c.Verdict}
	for _, e := range exps {
		if ok, _ := path.Match(e.Cells, c.Name); ok {
			j.Expected = append(j.Expected, e)
		}
	}
	m := ChecksOf(c)
	for _, r := range c.Checks {
		jr := Judged{Result: r, Effective: r.Verdict}
		for _, e := range j.Expected {
			k, ok := knownAnomaly(e.Anomaly)
			if !ok { // ParseExpect refuses it; a caller that built it by hand gets no excuse
				continue
			}
			if r.Verdict == checker.Invalid && k.Explains(m, r.Name) {
				jr.Effective, jr.Expected = checker.Valid, e.String()
				jr.Note = "expected (--expect " + e.String() + "): " + k.Doc
			}
			if r.Name == k.Witness && !k.Found(m) && r.Verdict == checker.Valid {
				jr.Effective, jr.Expected = checker.Invalid, e.String()
				jr.Note = fmt.Sprintf("expected %s (--expect %s) but none were found: the known anomaly did not reproduce", e.Anomaly, e)
				j.Reproduce = jr.Note
			}
		}
		j.Checks = append(j.Checks, jr)
	}
	if c.Verdict != Error && len(c.Checks) > 0 {
		j.Verdict = judgedVerdict(j.Checks)
	}
	return j
}

// Unexcused says whether the cell found an anomaly that no expectation
// excuses: what bisection asks of a release, so that a known anomaly
// every release shows (--expect) does not hide the one being bisected.
// An expected anomaly that did not show is not an anomaly here.
func Unexcused(c CellResult, exps []Expectation) bool {
	for _, r := range Judge(c, exps).Checks {
		if r.Verdict == checker.Invalid && r.Effective == checker.Invalid {
			return true
		}
	}
	return false
}

func judgedVerdict(checks []Judged) Verdict {
	rs := make([]checker.Result, len(checks))
	for i, c := range checks {
		rs[i] = checker.Result{Verdict: c.Effective}
	}
	return VerdictOf(rs)
}

// JudgeRun judges every cell; unused lists expectations that matched no
// cell (a typo in a nightly must not pass silently). A shard's
// expectation is used when it matches a cell of the whole matrix: the
// cell it names may be another shard's, and the merged run judges it.
func JudgeRun(res Result, exps []Expectation) (cells []JudgedCell, unused []Expectation) {
	used := make([]bool, len(exps))
	mark := func(name string) {
		for i, e := range exps {
			if ok, _ := path.Match(e.Cells, name); ok {
				used[i] = true
			}
		}
	}
	for _, c := range res.Cells {
		mark(c.Name)
		cells = append(cells, Judge(c, exps))
	}
	if res.Spec.Shard != nil {
		for _, c := range res.Spec.AllCells() {
			mark(c.Name)
		}
	}
	for i, e := range exps {
		if !used[i] {
			unused = append(unused, e)
		}
	}
	return cells, unused
}

// EffectiveVerdict is the run's verdict once expected anomalies are
// excused: the worst judged cell; an expectation that matched no cell, or
// an interruption, is a harness error.
func EffectiveVerdict(res Result, exps []Expectation) Verdict {
	cells, unused := JudgeRun(res, exps)
	v := Valid
	if len(cells) == 0 || len(unused) > 0 || res.Interrupted {
		v = Error
	}
	for _, c := range cells {
		v = Worse(v, c.Verdict)
	}
	return v
}

// ExitCode is the process exit code for a run under expectations: the
// worst effective cell's, 130 when interrupted. Without expectations it is
// the pipeline's own code.
func ExitCode(res Result, exps []Expectation) int {
	if res.Interrupted {
		return ExitInterrupted
	}
	return EffectiveVerdict(res, exps).ExitCode()
}
