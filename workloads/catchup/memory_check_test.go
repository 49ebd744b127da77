package catchup

import (
	"strings"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
)

func TestMemoryCheckFixtures(t *testing.T) {
	for _, tc := range []struct {
		dir   string
		want  checker.Verdict
		words []string
	}{
		{"testdata/memory/jump", checker.Invalid, []string{"n2 peaked at 2.34GiB RSS", "after it was current", "the other follower n1 peaked at 85.97MiB", "Above the bound"}},
		{"testdata/memory/flat", checker.Valid, []string{"n3 peaked at 611.78MiB", "the other follower n2", "Within the bound"}},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			r, err := Load(tc.dir)
			if err != nil {
				t.Fatal(err)
			}
			got := memoryCheck(&r)
			if got.Verdict != tc.want {
				t.Fatalf("verdict %s, want %s: %s", got.Verdict, tc.want, got.Summary)
			}
			for _, w := range tc.words {
				if !strings.Contains(got.Summary, w) {
					t.Errorf("summary %q lacks %q", got.Summary, w)
				}
			}
		})
	}
}

// memResult is a cell whose target peaked at target bytes and whose two
// other nodes at other and leader; n1 led throughout.
func memResult(target, other, leader int64) Result {
	r := Result{Target: "n3", Options: Options{Payload: 4 << 10}}
	r.CatchUp = CatchUp{RestartAtMs: 1000, CurrentAtMs: 5000, Seconds: 4}
	r.Stream.RestartBytes = 1 << 30
	mem := func(node string, peak int64) NodeMemory {
		return NodeMemory{Node: node, RSS: Series{T: []int64{1000, 5000}, V: []int64{peak / 2, peak}}, PeakRSS: peak, PeakRSSAt: 5000}
	}
	r.Memory = []NodeMemory{mem("n1", leader), mem("n2", other), mem("n3", target)}
	r.Lag = []LagSample{{TMs: 2000, Leader: "n1"}, {TMs: 3000, Leader: "n1"}}
	r.Publish.PerSecond = []PublishSecond{{T: 2, OK: 100}, {T: 9, OK: 1000}}
	return r
}

func TestMemoryCheckRules(t *testing.T) {
	const mib = 1 << 20
	bound := int64(DefaultJumpMargin + 100*mib) // 100 MiB follower: 3x is below the margin
	for _, tc := range []struct {
		name string
		r    Result
		want checker.Verdict
	}{
		{"flat", memResult(300*mib, 100*mib, 900*mib), checker.Valid},
		{"at the bound exactly is within it", memResult(bound, 100*mib, 900*mib), checker.Valid},
		{"one byte over", memResult(bound+1, 100*mib, 900*mib), checker.Invalid},
		{"the leader is no baseline", memResult(2000*mib, 100*mib, 3000*mib), checker.Invalid},
		{"3x a big follower is the bound", memResult(1700*mib, 600*mib, 600*mib), checker.Valid},
		{"no restart", func() Result { r := memResult(1, 1, 1); r.CatchUp = CatchUp{}; return r }(), checker.Unknown},
		{"no target samples", func() Result { r := memResult(1, 1, 1); r.Memory[2].RSS = Series{}; return r }(), checker.Unknown},
		{"no other follower samples", func() Result { r := memResult(1, 0, 1); return r }(), checker.Unknown},
		{"an absolute bound replaces the relative one", func() Result {
			r := memResult(300*mib, 100*mib, 900*mib)
			r.Options.MaxCatchupMemory = 200 * mib
			return r
		}(), checker.Invalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := memoryCheck(&tc.r); got.Verdict != tc.want {
				t.Errorf("verdict %s, want %s: %s", got.Verdict, tc.want, got.Summary)
			}
		})
	}
	// Bytes published from the restart until current, not after.
	r := memResult(300*mib, 100*mib, 900*mib)
	if got := memoryCheck(&r); got.Counts[CountPublishedCatchUp] != 100*4<<10 {
		t.Errorf("published %d, want %d", got.Counts[CountPublishedCatchUp], 100*4<<10)
	}
}
