package batch

import (
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/record"
)

// The known anomaly excuses batch-isolation when no_results is all it
// found, and nothing else; it is found only when there is one.
func TestNoResultsExplains(t *testing.T) {
	checks := func(counts map[string]int) record.Checks {
		return record.Checks{CheckIsolation: &checker.Result{Name: CheckIsolation, Verdict: checker.Invalid, Counts: counts},
			CheckAtomic: &checker.Result{Name: CheckAtomic, Verdict: checker.Invalid, Counts: map[string]int{"partial": 1}}}
	}
	for _, tc := range []struct {
		name             string
		counts           map[string]int
		found, isolation bool
	}{
		{"no results alone", map[string]int{"no_results": 3}, true, true},
		{"no results beside a subject left out", map[string]int{"no_results": 3, "missing": 1}, true, false},
		{"no results beside a partial delivery", map[string]int{"no_results": 1, "saw_partial": 1}, true, false},
		{"none", map[string]int{"mixed": 1}, false, false},
	} {
		m := checks(tc.counts)
		if noResultsFound(m) != tc.found || noResultsExplain(m, CheckIsolation) != tc.isolation || noResultsExplain(m, CheckAtomic) {
			t.Errorf("%s: found %v, explains isolation %v, atomic %v", tc.name, noResultsFound(m), noResultsExplain(m, CheckIsolation), noResultsExplain(m, CheckAtomic))
		}
	}
}
