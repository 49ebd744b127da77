package reports

import (
	"bytes"
	"encoding/xml"
	"github.com/jetstream-chaos/jetstream-chaos/reports/reportstest"
	"strings"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/record"
)

// parsed JUnit, as a CI reader sees it.
type jSuites struct {
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Errors   int      `xml:"errors,attr"`
	Suites   []jSuite `xml:"testsuite"`
}

type jSuite struct {
	Name     string  `xml:"name,attr"`
	Tests    int     `xml:"tests,attr"`
	Failures int     `xml:"failures,attr"`
	Errors   int     `xml:"errors,attr"`
	Cases    []jCase `xml:"testcase"`
	Props    []struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	} `xml:"properties>property"`
}

type jCase struct {
	Name    string `xml:"name,attr"`
	Class   string `xml:"classname,attr"`
	Failure *struct {
		Type    string `xml:"type,attr"`
		Message string `xml:"message,attr"`
		Body    string `xml:",chardata"`
	} `xml:"failure"`
	Error *struct {
		Type    string `xml:"type,attr"`
		Message string `xml:"message,attr"`
	} `xml:"error"`
}

func junitOf(t *testing.T, res record.Result, exps ...record.Expectation) jSuites {
	t.Helper()
	var b bytes.Buffer
	if err := JUnit(&b, res, exps...); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), xml.Header) {
		t.Errorf("no XML header")
	}
	var s jSuites
	if err := xml.Unmarshal(b.Bytes(), &s); err != nil {
		t.Fatalf("junit.xml is not valid XML: %v\n%s", err, b.String())
	}
	// The totals must add up, at every level.
	tests, fails, errs := 0, 0, 0
	for _, su := range s.Suites {
		f, e := 0, 0
		for _, c := range su.Cases {
			if c.Failure != nil {
				f++
			}
			if c.Error != nil {
				e++
			}
			if c.Failure != nil && c.Error != nil {
				t.Errorf("%s/%s is both a failure and an error", su.Name, c.Name)
			}
		}
		if su.Tests != len(su.Cases) || su.Failures != f || su.Errors != e {
			t.Errorf("suite %s says tests=%d failures=%d errors=%d, has %d/%d/%d", su.Name, su.Tests, su.Failures, su.Errors, len(su.Cases), f, e)
		}
		tests, fails, errs = tests+su.Tests, fails+f, errs+e
	}
	if s.Tests != tests || s.Failures != fails || s.Errors != errs {
		t.Errorf("testsuites says %d/%d/%d, suites add up to %d/%d/%d", s.Tests, s.Failures, s.Errors, tests, fails, errs)
	}
	return s
}

func caseOf(t *testing.T, s jSuites, suite, name string) jCase {
	t.Helper()
	for _, su := range s.Suites {
		if su.Name != suite {
			continue
		}
		for _, c := range su.Cases {
			if c.Name == name {
				return c
			}
		}
	}
	t.Fatalf("no testcase %s/%s", suite, name)
	return jCase{}
}

func TestJUnit(t *testing.T) {
	stale := reportstest.ChecksOpts{Gets: 1000, Stale: 50, RejStale: 50}
	clean := reportstest.ChecksOpts{Gets: 1000}
	onOffSpec := func(res record.Result) record.Result {
		res.Spec.DirectGet = []bool{true, false}
		return res
	}
	tests := []struct {
		name                  string
		res                   record.Result
		exps                  []record.Expectation
		tests, failures, errs int
		check                 func(t *testing.T, s jSuites)
	}{
		{"all valid: one harness case and six checkers per cell", reportstest.ResultOf(reportstest.CellOf(true, "none", clean, ""), reportstest.CellOf(false, "none", clean, "")), nil,
			14, 0, 0, nil},
		{"invalid checkers are failures", reportstest.ResultOf(reportstest.CellOf(true, "none", stale, ""), reportstest.CellOf(false, "none", clean, "")), nil,
			14, 4, 0, func(t *testing.T, s jSuites) {
				c := caseOf(t, s, "direct-get-on", "stale-read")
				if c.Failure == nil || c.Failure.Type != "invalid" || !strings.Contains(c.Failure.Message, "50 of 1000 gets were stale") {
					t.Errorf("stale-read failure = %+v", c.Failure)
				}
				if !strings.Contains(c.Failure.Body, "client 1 get k1") {
					t.Errorf("failure body lacks the example: %q", c.Failure.Body)
				}
				if c.Class != "jetstream-chaos.direct-get-on" {
					t.Errorf("classname %q", c.Class)
				}
			}},
		{"unknown is an error, never skipped", reportstest.ResultOf(reportstest.CellOf(false, "none", reportstest.ChecksOpts{Gets: 10, LinUnknown: "time bound reached"}, "")), nil,
			7, 0, 1, func(t *testing.T, s jSuites) {
				c := caseOf(t, s, "direct-get-off", "linearizability")
				if c.Error == nil || c.Error.Type != "unknown" || c.Error.Message != "unknown: time bound reached" {
					t.Errorf("linearizability error = %+v", c.Error)
				}
			}},
		{"harness error is an error testcase", reportstest.ResultOf(reportstest.CellOf(true, "none", clean, ""), reportstest.CellOf(false, "none", clean, "start cluster: boom")), nil,
			8, 0, 1, func(t *testing.T, s jSuites) {
				c := caseOf(t, s, "direct-get-off", "harness")
				if c.Error == nil || c.Error.Type != "harness" || c.Error.Message != "start cluster: boom" {
					t.Errorf("harness error = %+v", c.Error)
				}
			}},
		{"cells that never ran are errors", func() record.Result {
			r := onOffSpec(reportstest.ResultOf(reportstest.CellOf(true, "none", clean, "")))
			r.Interrupted = true
			return r
		}(), nil, 8, 0, 1, func(t *testing.T, s jSuites) {
			c := caseOf(t, s, "direct-get-off", "harness")
			if c.Error == nil || !strings.Contains(c.Error.Message, "not run") {
				t.Errorf("not-run cell = %+v", c.Error)
			}
		}},
		{"expected stale reads pass", reportstest.ResultOf(reportstest.CellOf(true, "none", stale, ""), reportstest.CellOf(false, "none", clean, "")),
			[]record.Expectation{{Cells: "direct-get-on", Anomaly: "stale-reads"}}, 14, 0, 0, nil},
		{"expected stale reads that did not happen fail", reportstest.ResultOf(reportstest.CellOf(true, "none", clean, ""), reportstest.CellOf(false, "none", clean, "")),
			[]record.Expectation{{Cells: "direct-get-on", Anomaly: "stale-reads"}}, 14, 1, 0, func(t *testing.T, s jSuites) {
				c := caseOf(t, s, "direct-get-on", "stale-read")
				if c.Failure == nil || c.Failure.Type != "expected-anomaly-missing" {
					t.Errorf("missing expected anomaly = %+v", c.Failure)
				}
			}},
		{"an expectation does not excuse other anomalies", reportstest.ResultOf(reportstest.CellOf(true, "none", reportstest.ChecksOpts{Gets: 1000, Stale: 5, RejStale: 5, RejSpurious10071: 1, LostWrites: 2}, "")),
			[]record.Expectation{{Cells: "*direct-get-on", Anomaly: "stale-reads"}}, 7, 2, 0, func(t *testing.T, s jSuites) {
				for _, n := range []string{"wrong-last-seq", "stream-integrity"} {
					if caseOf(t, s, "direct-get-on", n).Failure == nil {
						t.Errorf("%s should still fail", n)
					}
				}
			}},
		{"an expectation matching no cell is an error", reportstest.ResultOf(reportstest.CellOf(false, "none", clean, "")),
			[]record.Expectation{{Cells: "direct-get-onn", Anomaly: "stale-reads"}}, 8, 0, 1, func(t *testing.T, s jSuites) {
				if c := caseOf(t, s, "expectations", "direct-get-onn=stale-reads"); c.Error == nil {
					t.Error("unused expectation passed")
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := junitOf(t, tt.res, tt.exps...)
			if s.Tests != tt.tests || s.Failures != tt.failures || s.Errors != tt.errs {
				t.Errorf("tests/failures/errors = %d/%d/%d, want %d/%d/%d", s.Tests, s.Failures, s.Errors, tt.tests, tt.failures, tt.errs)
			}
			if tt.check != nil {
				tt.check(t, s)
			}
		})
	}
}

func TestJUnitSuiteProperties(t *testing.T) {
	res := reportstest.ResultOf(reportstest.CellOf(true, "none", reportstest.ChecksOpts{Gets: 10}, ""))
	res.Seed, res.Command = 42, "chaos run --seed=42"
	s := junitOf(t, res)
	props := map[string]string{}
	for _, p := range s.Suites[0].Props {
		props[p.Name] = p.Value
	}
	if props["direct_get"] != "on" || props["seed"] != "42" || props["command"] != "chaos run --seed=42" || props["server_version"] != "v2.15.3" {
		t.Errorf("properties = %v", props)
	}
}
