package checker

import (
	"path/filepath"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// The delete fixtures live in testdata/deletes as triples: NAME.jsonl (the
// ops), NAME.stream.jsonl (what the observers saw: the checkers' stream)
// and NAME.final.jsonl (the read-back after the heal, one revision per key).
func loadDeleteFixture(t testing.TB, name string) (history.History, Final) {
	t.Helper()
	dir := filepath.Join("testdata", "deletes")
	ops, err := history.ReadOps(filepath.Join(dir, name+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	observed, complete, err := history.ReadStream(filepath.Join(dir, name+".stream.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	final, finalComplete, err := history.ReadStream(filepath.Join(dir, name+".final.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return history.History{Ops: ops, Stream: observed, StreamComplete: complete},
		Final{Entries: final, Complete: finalComplete, PerKey: 1, Observed: observed}
}

func TestDeleteFixtures(t *testing.T) {
	cases := []struct {
		name string
		// verdicts of the checkers that must not be valid.
		verdicts map[string]Verdict
		counts   map[string]map[string]int
	}{
		{"deletes_clean", nil, map[string]map[string]int{
			NameDeletes:   {CountMarkers: 2, CountCreatesAfterMarker: 2, CountResurrectedRead: 0, CountDeleteNotHonoured: 0, CountCreateOverLiveKey: 0},
			NameRetention: {CountKeys: 2, CountLastValueLost: 0, CountRetainedExtra: 0},
			NameIntegrity: {CountAckedWrites: 6, "gets_checked": 7, CountUnexpectedTombstone: 0, CountBadRead: 0},
			NameStaleRead: {CountGets: 8, CountStaleReads: 0},
		}},
		{"delete_not_honoured", map[string]Verdict{NameDeletes: Invalid, NameRetention: Invalid}, map[string]map[string]int{
			NameDeletes:   {CountDeleteNotHonoured: 1, CountResurrectedRead: 0},
			NameRetention: {CountLastValueLost: 1, CountRetainedExtra: 1},
		}},
		{"resurrected_read", map[string]Verdict{NameDeletes: Invalid, NameStaleRead: Invalid, NameLinearizability: Invalid}, map[string]map[string]int{
			NameDeletes:   {CountResurrectedRead: 1, CountDeleteNotHonoured: 0},
			NameStaleRead: {CountStaleReads: 1},
		}},
		{"create_over_live_key", map[string]Verdict{NameDeletes: Invalid, NameLinearizability: Invalid}, map[string]map[string]int{
			NameDeletes: {CountCreateOverLiveKey: 1, CountCreatesAfterMarker: 0},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h, final := loadDeleteFixture(t, c.name)
			opts := Options{}
			checks := append(All(opts), NewRetention(opts, final), NewDeletes(opts, final))
			for _, r := range Run(h, checks) {
				want, named := c.verdicts[r.Name]
				if !named {
					want = Valid
				}
				if r.Verdict != want {
					t.Errorf("%s: %s (%s %s), want %s", r.Name, r.Verdict, r.Summary, r.Reason, want)
				}
				for k, n := range c.counts[r.Name] {
					if got, ok := r.Counts[k]; !ok || got != n {
						t.Errorf("%s: count %s = %d (present %v), want %d", r.Name, k, got, ok, n)
					}
				}
			}
		})
	}
}
