package checker

import "testing"

func TestWorst(t *testing.T) {
	res := func(vs ...Verdict) []Result {
		var out []Result
		for _, v := range vs {
			out = append(out, Result{Verdict: v})
		}
		return out
	}
	for _, c := range []struct {
		in   []Result
		want Verdict
	}{
		{nil, Unknown},
		{res(Valid, Valid), Valid},
		{res(Valid, Unknown), Unknown},
		{res(Unknown, Invalid, Valid), Invalid},
		{res(Valid, ""), Unknown},
	} {
		if got := Worst(c.in); got != c.want {
			t.Errorf("Worst(%v) = %s, want %s", c.in, got, c.want)
		}
	}
}

// TestGuard: whatever a check of any workload does, Guard returns a named
// result with a verdict: a panic and an empty result are unknown, saying
// why; a verdict given is kept.
func TestGuard(t *testing.T) {
	for _, tc := range []struct {
		name   string
		check  func() Result
		want   Verdict
		reason string
	}{
		{"panics", func() Result { panic("index out of range") }, Unknown, "checker panicked: index out of range"},
		{"no verdict", func() Result { return Result{} }, Unknown, "the checker returned no verdict"},
		{"invalid", func() Result { return Result{Verdict: Invalid, Summary: "1 lost"} }, Invalid, ""},
		{"valid", func() Result { return Result{Name: "valid", Verdict: Valid} }, Valid, ""},
	} {
		r := Guard(tc.name, tc.check)
		if r.Name != tc.name || r.Verdict != tc.want || r.Reason != tc.reason {
			t.Errorf("%s: %q %s %q; want %q %s %q", tc.name, r.Name, r.Verdict, r.Reason, tc.name, tc.want, tc.reason)
		}
	}
}

// TornNote names the line a read-back was cut at, and nothing when it
// was not cut.
func TestTornNote(t *testing.T) {
	if TornNote(0) != "" || TornNote(12) != "; stream.jsonl is cut short at line 12: the read-back did not finish" {
		t.Errorf("TornNote: %q, %q", TornNote(0), TornNote(12))
	}
}
