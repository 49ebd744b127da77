package record

import (
	"strings"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
)

// The --expect policy, on an anomaly registered here; kv-update's
// stale reads are judged on real checkers' cells in its own package.

// "lossy" explains an invalid "loss" check (and its witness) when the "witness" check counts
// lost messages; everything else is judged as is.
func init() {
	RegisterAnomaly(KnownAnomaly{
		Name: "lossy",
		Doc:  "a test anomaly",
		Explains: func(m Checks, check string) bool {
			return (check == "loss" || check == "witness") && m.Count("witness", "lost") > 0
		},
		Found:   func(m Checks) bool { return m.Count("witness", "lost") > 0 },
		Witness: "witness",
	})
}

func cell(name string, lost int, others ...checker.Result) CellResult {
	w := checker.Result{Name: "witness", Verdict: checker.Valid, Counts: map[string]int{"lost": lost}}
	if lost > 0 {
		w.Verdict = checker.Invalid
	}
	checks := append([]checker.Result{w}, others...)
	return CellResult{Cell: Cell{Name: name}, Checks: checks, Verdict: VerdictOf(checks)}
}

func TestJudgeRegisteredAnomaly(t *testing.T) {
	on := Expectation{Cells: "*-on", Anomaly: "lossy"}
	loss := checker.Result{Name: "loss", Verdict: checker.Invalid}
	other := checker.Result{Name: "other", Verdict: checker.Invalid}
	unknown := checker.Result{Name: "other", Verdict: checker.Unknown, Reason: "t"}
	tests := []struct {
		name      string
		cell      CellResult
		want      Verdict
		reproduce bool
	}{
		{"the anomaly and the checks it explains are excused", cell("a-on", 2, loss), Valid, false},
		{"a check it does not explain still fails", cell("a-on", 2, loss, other), Invalid, false},
		{"unknown stays unknown", cell("a-on", 2, loss, unknown), Unknown, false},
		{"not found: the control did not reproduce", cell("a-on", 0), Invalid, true},
		{"a cell the pattern does not name is judged as is", cell("a-off", 2, loss), Invalid, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := Judge(tt.cell, []Expectation{on})
			if j.Verdict != tt.want || (j.Reproduce != "") != tt.reproduce {
				t.Errorf("verdict %s, reproduce note %q; want %s, a note %v", j.Verdict, j.Reproduce, tt.want, tt.reproduce)
			}
		})
	}
	if got := ExitCode(Result{Cells: []CellResult{cell("a-off", 0)}}, []Expectation{on}); got != ExitHarness {
		t.Errorf("an expectation that matched no cell exits %d, want %d", got, ExitHarness)
	}
}

func TestParseExpect(t *testing.T) {
	e, err := ParseExpect("*-on=lossy")
	if err != nil || e != (Expectation{Cells: "*-on", Anomaly: "lossy"}) {
		t.Errorf("ParseExpect = %+v, %v", e, err)
	}
	for _, bad := range []string{"", "a-on", "=lossy", "a-on=", "x=lost-writes", "[=lossy"} {
		if _, err := ParseExpect(bad); err == nil {
			t.Errorf("ParseExpect(%q) accepted", bad)
		}
	}
	if _, err := ParseExpect("x=nope"); err == nil || !strings.Contains(err.Error(), "known: lossy") {
		t.Errorf("an unknown anomaly: %v, want the known names", err)
	}
	if _, err := ParseExpects([]string{"a=lossy", "bad"}); err == nil {
		t.Error("ParseExpects accepted a bad value")
	}
}

func TestRegisterAnomalyRefusesDuplicates(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("a second \"lossy\" was registered")
		}
	}()
	RegisterAnomaly(KnownAnomaly{Name: "lossy", Explains: func(Checks, string) bool { return false },
		Found: func(Checks) bool { return false }, Witness: "w"})
}

// TestUnexcused: bisection's question of a cell under --expect.
func TestUnexcused(t *testing.T) {
	on := []Expectation{{Cells: "*-on", Anomaly: "lossy"}}
	loss := checker.Result{Name: "loss", Verdict: checker.Invalid}
	other := checker.Result{Name: "other", Verdict: checker.Invalid}
	unknown := checker.Result{Name: "other", Verdict: checker.Unknown, Reason: "t"}
	for _, tc := range []struct {
		name string
		cell CellResult
		exps []Expectation
		want bool
	}{
		{"only the expected anomaly", cell("a-on", 2, loss), on, false},
		{"another anomaly beside it", cell("a-on", 2, loss, other), on, true},
		{"the expected one absent: not an anomaly", cell("a-on", 0), on, false},
		{"unknown is no anomaly", cell("a-on", 2, loss, unknown), on, false},
		{"a cell not named", cell("a-off", 2, loss), on, true},
		{"no expectations: any invalid check", cell("a-on", 0, other), nil, true},
		{"no expectations, clean", cell("a-on", 0), nil, false},
	} {
		if got := Unexcused(tc.cell, tc.exps); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
