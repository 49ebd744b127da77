package catchup

import (
	"strings"
	"testing"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/internal/bytesize"
	"github.com/jetstream-chaos/jetstream-chaos/observe"
)

func TestMemoryCheckFixtures(t *testing.T) {
	for _, tc := range []struct {
		dir   string
		want  checker.Verdict
		words []string
	}{
		{"testdata/memory/jump", checker.Invalid, []string{"n2 peaked at 2.34GiB RSS", "after it was current", "the other follower n1 peaked at 85.97MiB", "Above the bound"}},
		{"testdata/memory/flat", checker.Valid, []string{"n3 peaked at 611.78MiB", "the other follower n2", "Within the bound"}},
		// The target's /varz answered nothing from its restart to the heal:
		// no peak is known (it once passed as "peaked at 0B").
		{"testdata/memory/silent", checker.Unknown, []string{"n2 sent no RSS sample between its restart at 39.6s and the heal at 70.0s",
			"the other follower n1 peaked at 86MiB", "not known"}},
		// A step-down moved the leader from n1 to n3 mid-catch-up: n1, which
		// led and served it, is no baseline, and no node stayed a follower.
		{"testdata/memory/stepdown", checker.Unknown, []string{"n2 peaked at 2.34GiB", "no node stayed a follower",
			"n1 led in 8, n3 led in 12 of the 20 lag samples", "No bound"}},
		// Its control: n3 led throughout, n1 stayed a follower.
		{"testdata/memory/no_stepdown", checker.Invalid, []string{"the other follower n1 peaked at 86MiB", "Above the bound of 1.08GiB"}},
		// Held at its limit: the demand was at least the limit.
		{"testdata/memory/limit_held", checker.Unknown, []string{"n3 peaked at 1019.52MiB", "OOM-killed once and held within 5% of its 1GiB limit",
			"not above the bound of 1.09GiB", "cannot be seen under this limit"}},
		{"testdata/memory/limit_oom_above_bound", checker.Invalid, []string{"n3 peaked at 1.05GiB", "OOM-killed once:",
			"at least the 1.5GiB limit, above the bound of 1.09GiB"}},
		{"testdata/memory/limit_clean", checker.Valid, []string{"n3 peaked at 612MiB", "Within the bound of 1.06GiB"}},
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
		return NodeMemory{NodeMemory: observe.NodeMemory{Node: node, RSS: observe.Series{T: []int64{1000, 5000}, V: []int64{peak / 2, peak}}}, PeakRSS: peak, PeakRSSAt: 5000}
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
		{"no target samples", func() Result { r := memResult(1, 1, 1); r.Memory[2].RSS = observe.Series{}; return r }(), checker.Unknown},
		{"no other follower samples", func() Result { r := memResult(1, 0, 1); return r }(), checker.Unknown},
		// The window is the restart to the heal: samples outside it are not
		// the catch-up's.
		{"target samples only before the restart and after the heal", tweak(memResult(300*mib, 100*mib, 900*mib), func(r *Result) {
			r.Phases = []PhaseTime{{Name: PhaseHeal, StartMs: 6000}}
			r.Memory[2].RSS = observe.Series{T: []int64{500, 6000, 7000}, V: []int64{300 * mib, 300 * mib, 300 * mib}}
		}), checker.Unknown},
		{"a target sample just before the heal is in the window", tweak(memResult(300*mib, 100*mib, 900*mib), func(r *Result) {
			r.Phases = []PhaseTime{{Name: PhaseHeal, StartMs: 6000}}
			r.Memory[2].RSS = observe.Series{T: []int64{5999}, V: []int64{300 * mib}}
		}), checker.Valid},
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

// tweak returns r changed by f.
func tweak(r Result, f func(*Result)) Result {
	f(&r)
	return r
}

// The baseline is a node that no lag sample from the restart to the heal
// names the stream leader: one that led any part of it served the
// catch-up or the writes then.
func TestMemoryCheckBaseline(t *testing.T) {
	const mib = 1 << 20
	lag := func(leaders ...string) []LagSample { // one sample a second from 1.5s
		var out []LagSample
		for i, l := range leaders {
			out = append(out, LagSample{TMs: 1500 + int64(i)*1000, Leader: l})
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		r     Result
		want  checker.Verdict
		words string
	}{
		{"the other follower led mid-catch-up", tweak(memResult(2000*mib, 100*mib, 900*mib), func(r *Result) {
			r.Lag = lag("n1", "n2", "n2", "n1")
		}), checker.Unknown, "no node stayed a follower from the restart to the heal to be the baseline (n1 led in 2, n2 led in 2 of the 4 lag samples"},
		{"no lag sample names a leader", tweak(memResult(2000*mib, 100*mib, 900*mib), func(r *Result) {
			r.Lag = lag("", "", "")
		}), checker.Unknown, "no lag sample from the restart to the heal named the stream leader"},
		{"leading before the restart does not count", tweak(memResult(2000*mib, 100*mib, 900*mib), func(r *Result) {
			r.Lag = append([]LagSample{{TMs: 900, Leader: "n2"}}, lag("n1", "n1")...)
		}), checker.Invalid, "the other follower n2 peaked at 100MiB"},
		{"leading after the heal does not count", tweak(memResult(2000*mib, 100*mib, 900*mib), func(r *Result) {
			r.Phases = []PhaseTime{{Name: PhaseHeal, StartMs: 6000}}
			r.Lag = append(lag("n1", "n1"), LagSample{TMs: 6000, Leader: "n2"})
		}), checker.Invalid, "the other follower n2 peaked at 100MiB"},
		{"the target leading keeps the baseline", tweak(memResult(2000*mib, 100*mib, 900*mib), func(r *Result) {
			r.Lag = lag("n1", "n1", "n3")
		}), checker.Invalid, "the other follower n2 peaked at 100MiB, the leader n1 at 900MiB"},
		{"of two followers the higher peak is the baseline", tweak(memResult(2000*mib, 100*mib, 900*mib), func(r *Result) {
			r.Lag = lag("n3", "n3")
		}), checker.Valid, "the other follower n1 peaked at 900MiB"},
		{"an absolute bound needs no baseline", tweak(memResult(300*mib, 100*mib, 900*mib), func(r *Result) {
			r.Lag = lag("n1", "n2")
			r.Options.MaxCatchupMemory = 200 * mib
		}), checker.Invalid, "Above the bound of 200MiB (--max-catchup-memory)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := memoryCheck(&tc.r)
			if got.Verdict != tc.want || !strings.Contains(got.Summary, tc.words) {
				t.Errorf("verdict %s, want %s with %q: %s", got.Verdict, tc.want, tc.words, got.Summary)
			}
		})
	}
}

// A peak held down by the target's hard limit is censored: an OOM kill,
// or a peak within LimitMarginPercent of the limit, says the demand was at
// least the limit, which decides only when the limit is above the bound.
func TestMemoryCheckLimit(t *testing.T) {
	const mib = 1 << 20
	const gib = 1 << 30
	bound := int64(DefaultJumpMargin + 100*mib) // 1.1 GiB: the 100 MiB follower's
	margin := int64(gib - gib*LimitMarginPercent/100)
	limited := func(target, limit int64, ooms ...int64) Result {
		r := memResult(target, 100*mib, 900*mib)
		r.Phases = []PhaseTime{{Name: PhaseHeal, StartMs: 6000}}
		r.Memory[2].Limit = observe.Series{T: []int64{500, 6000}, V: []int64{limit, 0}}
		for _, t := range ooms {
			r.Events = append(r.Events, observe.Event{TMs: t, Node: "n3", Kind: observe.EvOOMKill})
		}
		return r
	}
	for _, tc := range []struct {
		name  string
		r     Result
		want  checker.Verdict
		words string
	}{
		{"well under its limit", limited(600*mib, gib), checker.Valid, "Within the bound"},
		{"held at the margin, limit below the bound", limited(margin, gib), checker.Unknown, "held within 5% of its 1GiB limit: its demand was at least the 1GiB limit, which is not above the bound"},
		{"one byte under the margin", limited(margin-1, gib), checker.Valid, "Within the bound"},
		{"held at its limit, limit above the bound", limited(bound, bound+bound/50), checker.Invalid, "its demand was at least the"},
		{"OOM-killed, limit above the bound", limited(300*mib, 2*gib, 3000), checker.Invalid, "OOM-killed once: its demand was at least the 2GiB limit, above the bound"},
		{"OOM-killed, limit at the bound", limited(300*mib, bound, 3000), checker.Unknown, "not above the bound"},
		{"OOM-killed with no limit recorded", limited(300*mib, 0, 3000), checker.Unknown, "with no memory limit recorded"},
		{"an OOM kill before the restart is not the catch-up's", limited(300*mib, 2*gib, 900), checker.Valid, "Within the bound"},
		{"another node's OOM kill is not the target's", tweak(limited(300*mib, 2*gib), func(r *Result) {
			r.Events = []observe.Event{{TMs: 3000, Node: "n1", Kind: observe.EvOOMKill}}
		}), checker.Valid, "Within the bound"},
		{"an OOM kill seen after the heal began counts", limited(300*mib, 2*gib, 6100), checker.Invalid, "OOM-killed once"},
		{"silent and OOM-killed, limit above the bound", tweak(limited(0, 2*gib, 3000), func(r *Result) {
			r.Memory[2].RSS = observe.Series{}
		}), checker.Invalid, "n3 sent no RSS sample"},
		{"the limit lifted at the heal does not count", tweak(limited(margin, gib), func(r *Result) {
			r.Memory[2].Limit = observe.Series{T: []int64{500, 800}, V: []int64{gib, 0}}
		}), checker.Valid, "Within the bound"},
		{"a limit set within the window counts", tweak(limited(margin, gib), func(r *Result) {
			r.Memory[2].Limit = observe.Series{T: []int64{2000}, V: []int64{gib}}
		}), checker.Unknown, "held within 5% of its 1GiB limit"},
		{"--memory-limit when no change was recorded", tweak(limited(margin, gib), func(r *Result) {
			r.Memory[2].Limit = observe.Series{}
			r.Options.MemoryLimit = gib
		}), checker.Unknown, "held within 5% of its 1GiB limit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := memoryCheck(&tc.r)
			if got.Verdict != tc.want || !strings.Contains(got.Summary, tc.words) {
				t.Errorf("verdict %s, want %s with %q: %s", got.Verdict, tc.want, tc.words, got.Summary)
			}
		})
	}
}

// The payload published while catching up is CatchUp.PublishedBytes,
// counted at run time; a cell stored before it counts PerSecond's acks
// from the restart until current.
func TestMemoryCheckPublished(t *testing.T) {
	const mib = 1 << 20
	for _, tc := range []struct {
		name      string
		published int64
		perSecond []PublishSecond
		want      int64
	}{
		{"run-time count", 3 * mib, nil, 3 * mib},
		{"run-time count over the series", 3 * mib, []PublishSecond{{T: 2, OK: 100}}, 3 * mib},
		{"stored before: the series from the restart until current", 0, []PublishSecond{{T: 0, OK: 7}, {T: 2, OK: 100}, {T: 5, OK: 10}, {T: 9, OK: 1000}}, 110 * 4096},
		{"neither", 0, nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := memResult(900*mib, 100*mib, 400*mib)
			r.CatchUp.PublishedBytes, r.Publish.PerSecond = tc.published, tc.perSecond
			got := memoryCheck(&r)
			if n := got.Counts[CountPublishedCatchUp]; int64(n) != tc.want {
				t.Errorf("published %d, want %d", n, tc.want)
			}
			if w := bytesize.Bytes(tc.want).String() + " were published while it caught up"; !strings.Contains(got.Summary, w) {
				t.Errorf("summary %q lacks %q", got.Summary, w)
			}
		})
	}
}

// endCatchup records what was acknowledged since the restart, late acks
// included, and not what the fill published.
func TestEndCatchupCountsPublished(t *testing.T) {
	now := time.Now()
	r := &cell{t0: now, fleet: &fleet{stats: newPubStats()}}
	r.fleet.stats.ok(PhaseFill, now, now, 4096, 1, false)
	r.ackedAtRestart = r.fleet.stats.ackedBytes() // as restart takes it
	r.fleet.stats.ok(PhaseCatchup, now, now, 4096, 2, false)
	r.fleet.stats.ok(PhaseCatchup, now, now, 4096, 3, true)
	r.endCatchup("", "")
	if got := r.res.CatchUp.PublishedBytes; got != 2*4096 {
		t.Errorf("PublishedBytes %d, want %d", got, 2*4096)
	}
}
