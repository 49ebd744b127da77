package reports

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/record"
)

// JUnit mapping, one <testsuite> per cell, one <testcase> per checker plus
// one named "harness":
//
//   - valid: the testcase passes.
//   - invalid: <failure type="invalid">, message the checker's summary,
//     body the examples.
//   - unknown: <error type="unknown">, message the reason. Not <skipped>:
//     CI dashboards show skipped tests as green, and unknown is never a
//     pass (exit code 2).
//   - harness error (the cell could not run, or has no results): the
//     "harness" testcase is an <error type="harness">; it passes otherwise.
//   - a cell the spec asked for that never ran (interrupted run) is a suite
//     whose harness testcase errors; an --expect that matched no cell is an
//     error testcase in a suite named "expectations".
//   - an expected anomaly (--expect) passes, with the note in
//     <system-out>; an expected anomaly that did not reproduce is a
//     <failure type="expected-anomaly-missing"> on its witness checker.
//   - the workload's view may add suite properties, and the cell's finding
//     in words to its harness testcase.

type xmlSuites struct {
	XMLName  xml.Name   `xml:"testsuites"`
	Name     string     `xml:"name,attr"`
	Tests    int        `xml:"tests,attr"`
	Failures int        `xml:"failures,attr"`
	Errors   int        `xml:"errors,attr"`
	Skipped  int        `xml:"skipped,attr"`
	Time     string     `xml:"time,attr"`
	Suites   []xmlSuite `xml:"testsuite"`
}

type xmlSuite struct {
	Name       string        `xml:"name,attr"`
	Tests      int           `xml:"tests,attr"`
	Failures   int           `xml:"failures,attr"`
	Errors     int           `xml:"errors,attr"`
	Skipped    int           `xml:"skipped,attr"`
	Time       string        `xml:"time,attr"`
	Timestamp  string        `xml:"timestamp,attr,omitempty"`
	Properties []xmlProperty `xml:"properties>property,omitempty"`
	Cases      []xmlCase     `xml:"testcase"`
	secs       float64
}

type xmlProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type xmlCase struct {
	Name      string      `xml:"name,attr"`
	Classname string      `xml:"classname,attr"`
	Time      string      `xml:"time,attr"`
	Failure   *xmlProblem `xml:"failure,omitempty"`
	Error     *xmlProblem `xml:"error,omitempty"`
	SystemOut string      `xml:"system-out,omitempty"`
}

type xmlProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Body    string `xml:",chardata"`
}

func secs(s float64) string { return fmt.Sprintf("%.3f", s) }

// JUnit writes res as JUnit XML under the expectations (none: every
// anomaly fails). The workload's view reads its cells' files under res.Dir
// (or each cell's recorded folder) for what its suites carry beyond the
// checks.
func JUnit(w io.Writer, res record.Result, exps ...record.Expectation) error {
	return writeJUnit(w, runOf(res), exps)
}

// writeJUnit is JUnit of a loaded run.
func writeJUnit(w io.Writer, r *Run, exps []record.Expectation) error {
	res := r.Result
	top := xmlSuites{Name: "jetstream-chaos " + res.ID}
	cells, unused := record.JudgeRun(res, exps)
	ran := map[string]bool{}
	for i, c := range cells {
		ran[c.Name] = true
		s := cellSuite(res, c)
		if r.view != nil && i < len(r.Cells) {
			s.add(c, r.view.JUnit(r, r.Cells[i]))
		}
		top.Suites = append(top.Suites, s)
	}
	for _, c := range res.Spec.Cells() {
		if ran[c.Name] {
			continue
		}
		s := xmlSuite{Name: c.Name, Properties: cellProps(res, c, nil)}
		s.Cases = []xmlCase{{Name: "harness", Classname: classname(c.Name), Time: secs(0),
			Error: &xmlProblem{Type: "harness", Message: "not run: the run was interrupted before this cell"}}}
		top.Suites = append(top.Suites, s)
	}
	if len(unused) > 0 {
		s := xmlSuite{Name: "expectations"}
		for _, e := range unused {
			s.Cases = append(s.Cases, xmlCase{Name: e.String(), Classname: "jetstream-chaos.expectations", Time: secs(0),
				Error: &xmlProblem{Type: "harness", Message: fmt.Sprintf("--expect %s matched no cell", e)}})
		}
		top.Suites = append(top.Suites, s)
	}
	total := 0.0
	for i := range top.Suites {
		s := &top.Suites[i]
		for _, c := range s.Cases {
			s.Tests++
			if c.Failure != nil {
				s.Failures++
			}
			if c.Error != nil {
				s.Errors++
			}
		}
		s.Time = secs(s.secs)
		total += s.secs
		top.Tests += s.Tests
		top.Failures += s.Failures
		top.Errors += s.Errors
	}
	top.Time = secs(total)
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(top); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func classname(cell string) string { return "jetstream-chaos." + cell }

func cellProps(res record.Result, c record.Cell, exps []record.Expectation) []xmlProperty {
	p := []xmlProperty{
		{"direct_get", OnOff(c.DirectGet)},
		{"server_version", c.ServerVersion},
		{"nemesis", c.Nemesis},
		{"seed", fmt.Sprint(res.Seed)},
		{"command", res.Command},
	}
	if x := res.Spec.Cluster.ExternalSummary(); x != "" {
		p = append(p, xmlProperty{"external_cluster", x})
	}
	for _, e := range exps {
		p = append(p, xmlProperty{"expect", e.String()})
	}
	return p
}

func cellSuite(res record.Result, c record.JudgedCell) xmlSuite {
	s := xmlSuite{Name: c.Name, Properties: cellProps(res, c.Cell, c.Expected)}
	if !c.StartedAt.IsZero() {
		s.Timestamp = c.StartedAt.UTC().Format("2006-01-02T15:04:05")
	}
	cls := classname(c.Name)
	phases := 0.0
	for _, v := range c.Phases {
		phases += v
	}
	s.secs = phases
	h := xmlCase{Name: "harness", Classname: cls, Time: secs(phases)}
	switch {
	case c.CellResult.Verdict == record.Error || c.Error != "":
		msg := c.Error
		if msg == "" {
			msg = "harness error"
		}
		h.Error = &xmlProblem{Type: "harness", Message: FirstLine(msg), Body: msg}
	case len(c.Checks) == 0:
		h.Error = &xmlProblem{Type: "harness", Message: "no checker ran"}
	default:
		h.SystemOut = fmt.Sprintf("%s: %d ops, files in %s", c.Label, c.Ops.Total, c.Name)
	}
	s.Cases = append(s.Cases, h)
	for _, j := range c.Checks {
		tc := xmlCase{Name: j.Name, Classname: cls, Time: secs(j.ElapsedMs / 1000), SystemOut: j.Note}
		switch j.Effective {
		case checker.Valid:
		case checker.Invalid:
			typ := "invalid"
			if j.Verdict == checker.Valid {
				typ = "expected-anomaly-missing"
			}
			tc.Failure = &xmlProblem{Type: typ, Message: FirstLine(failMessage(j)), Body: problemBody(j)}
		default:
			why := j.Reason
			if why == "" {
				why = j.Summary
			}
			tc.Error = &xmlProblem{Type: "unknown", Message: "unknown: " + FirstLine(why), Body: problemBody(j)}
		}
		s.Cases = append(s.Cases, tc)
	}
	return s
}

func failMessage(j record.Judged) string {
	if j.Verdict == checker.Valid && j.Note != "" {
		return j.Note
	}
	return j.Summary
}

// problemBody is the summary, the reason and the first examples: enough to
// read the finding in a CI log without opening the report.
func problemBody(j record.Judged) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n", j.Name, j.Summary)
	if j.Reason != "" {
		fmt.Fprintf(&b, "reason: %s\n", j.Reason)
	}
	if j.Note != "" {
		fmt.Fprintf(&b, "%s\n", j.Note)
	}
	for i, a := range j.Anomalies {
		if i == 5 {
			fmt.Fprintf(&b, "... %d more examples in results.json\n", len(j.Anomalies)-i)
			break
		}
		fmt.Fprintf(&b, "- %s: %s\n", a.Kind, a.Description)
	}
	return b.String()
}

// add puts what a view says of a cell into its suite: properties, and the
// finding in words on the harness testcase.
func (s *xmlSuite) add(c record.JudgedCell, x JUnitExtra) {
	for _, p := range x.Properties {
		s.Properties = append(s.Properties, xmlProperty{p.K, p.V})
	}
	if x.Finding == "" {
		return
	}
	for i := range s.Cases {
		h := &s.Cases[i]
		if h.Name != "harness" {
			continue
		}
		if h.Error != nil {
			h.Error.Body += "\n" + x.Finding
			continue
		}
		h.SystemOut = fmt.Sprintf("%s: %s (files in %s)", c.Label, x.Finding, c.Name)
	}
}
