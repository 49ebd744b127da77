package checker

import "testing"

func TestBuilder(t *testing.T) {
	built := 0
	ex := func(d string) func() Anomaly {
		return func() Anomaly { built++; return Anomaly{Description: d} }
	}
	clean := NewBuilder("c", 0)
	clean.Summarize("found", "looked at 3")
	if clean.Verdict != Valid || clean.Summary != "looked at 3" || clean.Max != 10 {
		t.Fatalf("nothing found: %+v", clean.Result)
	}

	b := NewBuilder("c", 2)
	b.Unsure("unread", "the read stopped at 7", ex("u1"))
	b.Unsure("unread", "a later reason", ex("u2"))
	b.Summarize("found", "looked at 3")
	if b.Verdict != Unknown || b.Reason != "the read stopped at 7" || b.Summary != "looked at 3; unknown: the read stopped at 7" {
		t.Fatalf("undecided: %+v", b.Result)
	}
	for range 3 {
		b.Flag("partial", ex("p"))
	}
	b.Unsure("unread", "", ex("u3")) // an unknown never hides an invalid
	b.Summarize("2 partial", "looked at 3")
	if b.Verdict != Invalid || b.Summary != "2 partial" || b.Counts["partial"] != 3 || b.Counts["unread"] != 3 {
		t.Fatalf("found: %+v", b.Result)
	}
	// Two examples a kind, built only when kept, each named by its kind.
	if built != 4 || len(b.Anomalies) != 4 || b.Anomalies[2].Kind != "partial" || b.Anomalies[0].Description != "u1" {
		t.Errorf("examples: built %d, kept %+v", built, b.Anomalies)
	}
}
