package record

// The exit-code policy of a run: its verdict once known anomalies are
// excused (--expect), and the process exit code that follows. Reports show
// the judged result; they do not decide it.

import (
	"fmt"
	"path"
	"sort"
	"strings"

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

// cellChecks finds a cell's checks by name.
type cellChecks map[string]*checker.Result

func checksOf(c CellResult) cellChecks {
	m := cellChecks{}
	for i := range c.Checks {
		m[c.Checks[i].Name] = &c.Checks[i]
	}
	return m
}

// count is a check's count, 0 when the check did not run.
func (m cellChecks) count(check, key string) int {
	if r := m[check]; r != nil {
		return r.Counts[key]
	}
	return 0
}

// knownAnomaly says which checkers an anomaly makes invalid.
type knownAnomaly struct {
	doc     string
	explain func(m cellChecks, check string) bool // check's invalid verdict follows from the anomaly
	found   func(m cellChecks) bool
	witness string // the checker that proves the anomaly
}

func staleReadsFound(m cellChecks) bool {
	return m.count(checker.NameStaleRead, checker.CountStaleReads) > 0
}

// onlyResurrectedReads: of the deletes check's anomalies, the cell shows
// resurrected reads at most (a get after an acknowledged delete returning
// the deleted value: a stale read of a deleted key), none of those no stale
// read explains (a value surviving its delete in the read-back, a create
// over a live key).
func onlyResurrectedReads(m cellChecks) bool {
	for _, k := range checker.DeletesAnomalies() {
		if k != checker.CountResurrectedRead && m.count(checker.NameDeletes, k) > 0 {
			return false
		}
	}
	return true
}

// knownAnomalies lists the anomalies --expect accepts.
var knownAnomalies = map[string]knownAnomaly{
	"stale-reads": {
		doc: "Direct Get stale reads: followers answer gets with an older revision; the session, stale-read " +
			"and linearizability checkers fail, wrong-last-seq fails only with rejections caused by stale reads, " +
			"and deletes only with resurrected reads (stale reads of a deleted key)",
		explain: func(m cellChecks, check string) bool {
			switch check {
			case checker.NameStaleRead, checker.NameSession, checker.NameLinearizability:
				return staleReadsFound(m)
			case checker.NameAttribution:
				return staleReadsFound(m) && m.count(checker.NameAttribution, checker.CountRejectedSpurious) == 0 &&
					m.count(checker.NameAttribution, checker.CountUnattributed) == 0
			case checker.NameDeletes:
				return staleReadsFound(m) && onlyResurrectedReads(m)
			}
			return false
		},
		found:   staleReadsFound,
		witness: checker.NameStaleRead,
	},
}

// KnownAnomalyNames lists the names ParseExpect accepts.
func KnownAnomalyNames() []string {
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
	if _, ok := knownAnomalies[anomaly]; !ok {
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
	m := checksOf(c)
	for _, r := range c.Checks {
		jr := Judged{Result: r, Effective: r.Verdict}
		for _, e := range j.Expected {
			k := knownAnomalies[e.Anomaly]
			if r.Verdict == checker.Invalid && k.explain(m, r.Name) {
				jr.Effective, jr.Expected = checker.Valid, e.String()
				jr.Note = "expected (--expect " + e.String() + "): " + k.doc
			}
			if r.Name == k.witness && !k.found(m) && r.Verdict == checker.Valid {
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

func judgedVerdict(checks []Judged) Verdict {
	rs := make([]checker.Result, len(checks))
	for i, c := range checks {
		rs[i] = checker.Result{Verdict: c.Effective}
	}
	return VerdictOf(rs)
}

// JudgeRun judges every cell; unused lists expectations that matched no
// cell (a typo in a nightly must not pass silently).
func JudgeRun(res Result, exps []Expectation) (cells []JudgedCell, unused []Expectation) {
	used := make([]bool, len(exps))
	for _, c := range res.Cells {
		j := Judge(c, exps)
		for i, e := range exps {
			if ok, _ := path.Match(e.Cells, c.Name); ok {
				used[i] = true
			}
		}
		cells = append(cells, j)
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
