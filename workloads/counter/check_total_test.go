package counter

import (
	"strings"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

func ok(id string, d int64, attempts int) Add {
	return Add{ID: id, Counter: "c", Delta: d, Outcome: history.OK, Attempts: attempts, Op: -1}
}

func info(id string, d int64, attempts int) Add {
	return Add{ID: id, Counter: "c", Delta: d, Outcome: history.Info, Attempts: attempts, Op: -1}
}

func refused(id string, d int64) Add {
	return Add{ID: id, Counter: "c", Delta: d, Outcome: history.Fail, Attempts: 1, Op: -1}
}

func final(v int64) Final { return Final{Values: map[string]int64{"c": v}, Complete: true} }

// Each fixture is judged by both checks: counter-total flags a counter off
// what its adds allow, counter-dedupe one that a retried add counted twice
// explains, and neither flags what the other names.
func TestTotalAndDedupe(t *testing.T) {
	defer func(m int) { maxSums = m }(maxSums)
	maxSums = 1 << 10
	powers := make([]Add, 11)
	for i := range powers {
		powers[i] = info("p", 1<<i, 1)
	}
	for _, tc := range []struct {
		name          string
		adds          []Add
		final         Final
		total, dedupe checker.Verdict
		kind          string // the total's or dedupe's anomaly or undecided case
	}{
		{"nothing added, nothing read", nil, Final{Values: map[string]int64{}, Complete: true}, checker.Valid, checker.Valid, ""},
		{"exact", []Add{ok("a", 1, 1), ok("b", 1, 1), ok("c", 1, 1)}, final(3), checker.Valid, checker.Valid, "exact"},
		{"indeterminate applied", []Add{ok("a", 1, 1), ok("b", 1, 1), info("i", 1, 2), info("j", 1, 1)}, final(4), checker.Valid, checker.Valid, "within"},
		{"indeterminate not applied", []Add{ok("a", 1, 1), ok("b", 1, 1), info("i", 1, 2), info("j", 1, 1)}, final(2), checker.Valid, checker.Valid, "within"},
		{"a zero add", []Add{ok("a", 0, 1), info("i", 0, 1)}, final(0), checker.Valid, checker.Valid, "within"},
		{"refused, not applied", []Add{ok("a", 2, 1), refused("r", 5)}, final(2), checker.Valid, checker.Valid, "exact"},
		{"mixed signs", []Add{ok("a", 3, 1), ok("b", -2, 1), info("i", -1, 1)}, final(0), checker.Valid, checker.Valid, "within"},

		{"one add short", []Add{ok("a", 1, 1), ok("b", 1, 1), ok("c", 1, 1)}, final(2), checker.Invalid, checker.Valid, "off"},
		{"beyond every indeterminate add", []Add{ok("a", 1, 1), info("i", 1, 1)}, final(5), checker.Invalid, checker.Valid, "off"},
		{"a refused add applied", []Add{ok("a", 2, 1), refused("r", 5)}, final(7), checker.Invalid, checker.Valid, "refused_counted"},
		{"a refused add applied beside indeterminate ones", []Add{ok("a", 2, 1), info("i", 1, 1), refused("r", 5)}, final(8), checker.Invalid, checker.Valid, "refused_counted"},
		{"off by more than a refused add", []Add{ok("a", 2, 1), refused("r", 5)}, final(8), checker.Invalid, checker.Valid, "off"},
		{"mixed signs, off", []Add{ok("a", 3, 1), ok("b", -2, 1), info("i", -1, 1)}, final(2), checker.Invalid, checker.Valid, "off"},
		{"an add never retried cannot be doubled", []Add{ok("a", 5, 1), ok("b", 1, 1)}, final(11), checker.Invalid, checker.Valid, "off"},

		{"a retried add applied twice", []Add{ok("a", 5, 2), ok("b", 1, 1)}, final(11), checker.Valid, checker.Invalid, "applied_twice"},
		{"an indeterminate retried add applied twice", []Add{info("a", 5, 3), ok("b", 1, 1)}, final(11), checker.Valid, checker.Invalid, "applied_twice"},

		{"not read", []Add{ok("a", 1, 1)}, Final{Values: map[string]int64{}, Detail: "timeout"}, checker.Unknown, checker.Unknown, "unread"},
		{"too many indeterminate adds to search", powers, final(0), checker.Unknown, checker.Unknown, "undecidable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, r := range []checker.Result{Total(tc.adds, tc.final, 0), Dedupe(tc.adds, tc.final, 0)} {
				want := tc.total
				if r.Name == CheckDedupe {
					want = tc.dedupe
				}
				if r.Verdict != want || r.Summary == "" {
					t.Errorf("%s: %s (want %s): %s %v", r.Name, r.Verdict, want, r.Summary, r.Counts)
				}
				if r.Verdict == checker.Unknown && (r.Reason == "" || r.Counts[tc.kind] == 0) {
					t.Errorf("%s: unknown without its reason or kind %s: %+v", r.Name, tc.kind, r)
				}
				if r.Verdict == checker.Invalid && (r.Counts[tc.kind] == 0 || len(r.Anomalies) == 0 || !strings.Contains(r.Anomalies[0].Description, "counter c is")) {
					t.Errorf("%s: no %s example: %+v", r.Name, tc.kind, r)
				}
			}
			if r := Total(tc.adds, tc.final, 0); tc.kind != "" && tc.total == checker.Valid && tc.dedupe == checker.Valid && r.Counts[tc.kind] == 0 {
				t.Errorf("counts %v lack %s", r.Counts, tc.kind)
			}
		})
	}
}

// The examples say the difference in units and in adds, and name the add
// applied twice, or each that could have been.
func TestTotalAndDedupeSayWhat(t *testing.T) {
	r := Total([]Add{ok("a", 1, 1), ok("b", 1, 1), ok("c", 1, 1)}, final(2), 0)
	if d := r.Anomalies[0].Description; !strings.Contains(d, "counter c is 2; its 3 acknowledged adds sum to 3: -1 off the nearest total they allow (3), -1 adds of 1") {
		t.Errorf("off: %q", d)
	}
	r = Total([]Add{ok("a", 2, 1), info("i", 3, 1)}, final(9), 0)
	if d := r.Anomalies[0].Description; !strings.Contains(d, "its 1 indeterminate adds can add at most 3 to that: +4 off the nearest total they allow (5)") {
		t.Errorf("off with indeterminate adds of two sizes: %q", d)
	}
	r = Dedupe([]Add{ok("a", 5, 2), ok("b", 1, 1)}, final(11), 0)
	if d := r.Anomalies[0].Description; d != "counter c is 11; its adds allow that only with add a (+5, 2 attempts) counted twice" {
		t.Errorf("doubled: %q", d)
	}
	r = Dedupe([]Add{ok("a", 1, 2), ok("b", 1, 3)}, final(3), 0)
	if d := r.Anomalies[0].Description; !strings.Contains(d, "one of the adds a (+1, 2 attempts), b (+1, 3 attempts) counted twice") {
		t.Errorf("doubled, either: %q", d)
	}
	if r := Total([]Add{ok("a", 5, 2), ok("b", 1, 1)}, final(11), 0); !strings.Contains(r.Summary, "1 off by an add applied twice (counter-dedupe)") {
		t.Errorf("the total's summary does not point at counter-dedupe: %q", r.Summary)
	}
}

// A refused add that the total counted is named with what it was answered.
func TestRefusedCountedNamesTheAdd(t *testing.T) {
	r := refused("0.1227", 6)
	r.Err, r.ErrCode, r.ErrMsg = history.ErrOther, 10008, "nats: API error: code=503 err_code=10008 description=JetStream system temporarily unavailable"
	res := Total([]Add{ok("a", 2, 1), r}, final(8), 0)
	if res.Counts["refused_counted"] != 1 || len(res.Anomalies) != 1 || !strings.HasPrefix(res.Summary, "1 counters are off the sum of their adds, 1 of them by exactly an add that was refused") ||
		!strings.Contains(res.Anomalies[0].Description, "exactly add 0.1227 (+6), which was refused with error 10008") {
		t.Errorf("%v %+v", res.Counts, res.Anomalies)
	}
}
