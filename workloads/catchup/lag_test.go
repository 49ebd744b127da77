package catchup

import "testing"

// TestLagBefore: the sample the target's data is held to is the latest
// taken at least half a second before, none before there is one.
func TestLagBefore(t *testing.T) {
	var r cell
	for _, tc := range []struct{ at, want int64 }{{0, 0}, {250, 0}, {500, 0}, {750, 250}, {1000, 500}, {3000, 1000}} {
		if got := r.lagBefore(LagSample{TMs: tc.at, LeaderLastSeq: uint64(tc.at)}); got.TMs != tc.want {
			t.Errorf("at %d: the sample of %d, want %d", tc.at, got.TMs, tc.want)
		}
	}
}
