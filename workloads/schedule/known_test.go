package schedule

import (
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/record"
)

// The known anomaly excuses schedule-once when never_fired is all it
// found, and schedule-repeat when missed is, once a schedule never fired;
// nothing else, and it is found only then.
func TestWorkQueueSourceDropsExplains(t *testing.T) {
	checks := func(once, repeat map[string]int) record.Checks {
		return record.Checks{CheckOnce: &checker.Result{Name: CheckOnce, Verdict: checker.Invalid, Counts: once},
			CheckRepeat:  &checker.Result{Name: CheckRepeat, Verdict: checker.Invalid, Counts: repeat},
			CheckRemoved: &checker.Result{Name: CheckRemoved, Verdict: checker.Invalid, Counts: map[string]int{"left": 1}}}
	}
	for _, tc := range []struct {
		name                string
		once, repeat        map[string]int
		found, eOnce, eRept bool
	}{
		{"never fired and missed", map[string]int{"never_fired": 153, "fired": 144}, map[string]int{"missed": 2}, true, true, true},
		{"never fired beside a double firing", map[string]int{"never_fired": 1, "fired_twice": 1}, map[string]int{"missed": 1}, true, false, true},
		{"a repeat fired twice", map[string]int{"never_fired": 1}, map[string]int{"missed": 1, "fired_twice": 1}, true, true, false},
		{"missed without a one-shot lost", map[string]int{"fired": 10}, map[string]int{"missed": 1}, false, false, false},
	} {
		m := checks(tc.once, tc.repeat)
		if dropsFound(m) != tc.found || dropsExplain(m, CheckOnce) != tc.eOnce || dropsExplain(m, CheckRepeat) != tc.eRept || dropsExplain(m, CheckRemoved) {
			t.Errorf("%s: found %v, explains once %v, repeat %v, removed %v", tc.name, dropsFound(m), dropsExplain(m, CheckOnce),
				dropsExplain(m, CheckRepeat), dropsExplain(m, CheckRemoved))
		}
	}
}
