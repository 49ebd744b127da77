package reports

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/nemesis"
	"github.com/jetstream-chaos/jetstream-chaos/record"
	"github.com/jetstream-chaos/jetstream-chaos/reports/reportstest"
	"github.com/jetstream-chaos/jetstream-chaos/watch"
)

// triggeredArchive is a real watched run, trimmed
// (TestMakeTriggeredTestdata): a stepdown on the clock and
// kill:new-leader@leader-change, which fired.
const triggeredArchive = "testdata/triggered.tar.gz"

// unpackTriggered extracts the triggered run into a fresh folder, where
// tests write its report, and returns the run folder.
func unpackTriggered(t testing.TB) string { return reportstest.UnpackRun(t, triggeredArchive) }

var (
	eventGroup  = regexp.MustCompile(`<g class="event" data-kind="([^"]+)"><title>([^<]*)</title>(<rect [^>]*/>){2}</g>`)
	effectGroup = regexp.MustCompile(`<g class="effect"><title>([^<]*)</title>(<rect [^>]*/>){2}</g>`)
)

// The real watched run: each of its three charts over time carries its
// three events and the kill's effect, hoverable; the faults table says
// what the trigger did, and the page what was watched.
func TestTriggeredRunPage(t *testing.T) {
	dir := unpackTriggered(t)
	page := pageOf(t, dir)
	for _, w := range []string{
		"<th>state</th><th>trigger</th><th>detail</th>",
		`<td class="trigger">leader-change: effect 1.6 ms after leader-change to n3 (from n1) at 3.132s, seen by log (effect at 3.133 s); ` +
			`lag then: not known (the watcher&#39;s last poll had no replica lag from the stream&#39;s leader)</td>`,
		`<td class="ok">verified</td><td class="trigger"></td>`, // the stepdown: a window of the clock
		"<strong>Watched events</strong> (each is a marker over the charts): leader-change 2, restart 1.</p>",
		`<a href="direct-get-off/cluster-events.jsonl">cluster-events.jsonl (what the watcher saw)</a>`,
		laneLead[:26],
		">triggered fault takes effect<", ">leader-change<", ">restart<", ">+1.6 ms<",
	} {
		if !strings.Contains(page, w) {
			t.Errorf("page lacks %q", w)
		}
	}
	kinds := map[string]int{}
	for _, m := range eventGroup.FindAllStringSubmatch(page, -1) {
		kinds[m[1]]++
		if m[1] == "leader-change" && !strings.Contains(m[2], "seen by log\n[1] 2026/12/02 ") {
			t.Errorf("a leader change seen in a log lacks its line: %q", m[2])
		}
	}
	if kinds["leader-change"] != 6 || kinds["restart"] != 3 || len(kinds) != 2 {
		t.Errorf("event markers by kind %v, want 2 leader changes and 1 restart on each of 3 charts", kinds)
	}
	effects := effectGroup.FindAllStringSubmatch(page, -1)
	if len(effects) != 3 || !strings.HasPrefix(effects[0][1], "kill:new-leader@leader-change n3: effect 1.6 ms after leader-change to n3") {
		t.Errorf("%d effect markers (want 3), the first %q", len(effects), effects)
	}
	if strings.Contains(page, "(missing)") {
		t.Error("a link of the triggered run is missing")
	}
}

// Runs stored before the watcher, or without it, render as they did: no
// marker, no trigger column, no watch line, no link to cluster-events.jsonl. A
// catch-up cell's own cluster-events.jsonl (kills, OOM kills) is not the
// watcher's.
func TestUnwatchedRunsUnchanged(t *testing.T) {
	for name, dir := range map[string]string{
		"testdata":                     unpackRun(t),
		"matrix":                       reportstest.WriteRun(t, reportstest.SyntheticMatrix()),
		"foreign cluster-events.jsonl": func() string { d, _ := foreignEvents(t, false); return d }(),
	} {
		t.Run(name, func(t *testing.T) {
			page := pageOf(t, dir)
			for _, bad := range []string{`<g class="event"`, `<g class="effect"`, "<th>trigger</th>", "Watched events", "cluster-events.jsonl", laneLead[:26]} {
				if strings.Contains(page, bad) {
					t.Errorf("page of a run that was not watched shows %q", bad)
				}
			}
		})
	}
}

// foreignEvents writes the synthetic matrix, its first cell watched or
// not, with an cluster-events.jsonl of the catch-up workload's shape there; it
// returns the run folder and that file.
func foreignEvents(t *testing.T, watched bool) (dir, file string) {
	s := reportstest.SyntheticMatrix()
	if watched {
		s.Cells[0].Res.Watch = &record.WatchSummary{Events: map[string]int{"leader-change": 1}}
		s.Res.Cells[0] = s.Cells[0].Res
	}
	dir = reportstest.WriteRun(t, s)
	file = filepath.Join(dir, s.Res.Cells[0].Name, watch.EventsFile)
	reportstest.WriteText(t, file, `{"t_ms":3934,"node":"n1","kind":"kill"}`+"\n")
	return dir, file
}

func TestForeignEventsFile(t *testing.T) {
	dir, file := foreignEvents(t, true)
	page := pageOf(t, dir)
	want := "cluster-events.jsonl could not be read, so no event is drawn: " + file +
		`:1: not an event of the cluster&#39;s watcher (kind &#34;kill&#34;, source &#34;&#34;)`
	if !strings.Contains(page, want) || strings.Contains(page, `<g class="event"`) {
		t.Errorf("a watched cell whose cluster-events.jsonl is not the watcher's: page lacks %q, or draws its lines", want)
	}
}

// Windows and what the faults table, the bands and the lane say of them.
func TestTriggeredWindows(t *testing.T) {
	ev := &watch.Event{Kind: watch.CatchupStart, At: 4 * time.Second, Node: "n2", Lag: 5000, Source: "poll"}
	base := nemesis.Window{Fault: "partition-leader", Targets: []string{"n1"}, Start: 4300 * time.Millisecond, End: 9 * time.Second,
		Injected: true, Verified: true, Trigger: "catchup-start+200ms", Event: ev, Effect: 4250 * time.Millisecond}
	with := func(f func(*nemesis.Window)) nemesis.Window { w := base; f(&w); return w }
	cases := []struct {
		name    string
		w       nemesis.Window
		trigger string
		band    string // the band's second line; "-": no band
		effect  string // the lane's effect label; "": none
	}{
		{"clock", reportstest.Window("kill", 1, 2, "n3"), "", "", ""},
		{"fired, lag", with(func(w *nemesis.Window) { w.Lag = map[string]uint64{"n3": 0, "n2": 5120} }),
			"catchup-start+200ms: effect 250 ms after catchup-start of n2 (5000 entries behind) at 4.000s, seen by poll (effect at 4.250 s); lag then: n2 5,120, n3 0",
			"lag n2 5,120, n3 0", "+250 ms"},
		{"fired, no lag polled", base,
			"catchup-start+200ms: effect 250 ms after catchup-start of n2 (5000 entries behind) at 4.000s, seen by poll (effect at 4.250 s); " +
				"lag then: not known (the watcher's last poll had no replica lag from the stream's leader)", "", "+250 ms"},
		{"effect before the event's time", with(func(w *nemesis.Window) { w.Effect = 3990 * time.Millisecond }),
			"catchup-start+200ms: effect 10 ms before the recorded time of catchup-start of n2 (5000 entries behind) at 4.000s, seen by poll " +
				"(effect at 3.990 s); lag then: not known (the watcher's last poll had no replica lag from the stream's leader)", "", "−10 ms"},
		{"fired, no control call", with(func(w *nemesis.Window) { w.Effect = 0 }),
			"catchup-start+200ms: fired by catchup-start of n2 (5000 entries behind) at 4.000s, seen by poll; no control call changed the cluster, so no effect time", "", ""},
		{"fired, not injected", with(func(w *nemesis.Window) { w.Injected, w.Effect, w.Start, w.End = false, 0, 9*time.Second, 9*time.Second }),
			"catchup-start+200ms: fired by catchup-start of n2 (5000 entries behind) at 4.000s, seen by poll; not injected", "", ""},
		{"never fired", nemesis.Window{Fault: "kill:old-leader@leader-change", Trigger: "leader-change", Start: 0, End: 15 * time.Second,
			Detail: "never fired: no leader-change event in the 15.0s the trigger was armed"},
			"leader-change: never fired (armed 0.0–15.0 s)", "-", ""},
		{"not watched", nemesis.Window{Fault: "kill@leader-change", Trigger: "leader-change", Detail: "not injected: the run does not watch the cluster's events (a harness error)"},
			"leader-change: no event fired it", "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := triggerWords(tc.w); got != tc.trigger {
				t.Errorf("trigger:\n got %q\nwant %q", got, tc.trigger)
			}
			bands := faultBands([]nemesis.Window{tc.w})
			switch {
			case tc.band == "-" && len(bands) != 0:
				t.Errorf("a trigger that never fired is shaded: %+v", bands)
			case tc.band != "-" && (len(bands) != 1 || bands[0].Sub != tc.band):
				t.Errorf("bands %+v, want one, its second line %q", bands, tc.band)
			}
			var effect string
			for _, it := range cellLane(&Cell{CellResult: record.CellResult{Faults: []nemesis.Window{tc.w}}}) {
				if it.effect() {
					effect = it.Label
				}
			}
			if effect != tc.effect {
				t.Errorf("effect marker %q, want %q", effect, tc.effect)
			}
		})
	}
}

// A never-fired trigger's row says so, with its armed span.
func TestNeverFiredRow(t *testing.T) {
	s := reportstest.SyntheticMatrix()
	c := &s.Cells[1].Res
	c.Faults = append(c.Faults, nemesis.Window{Fault: "kill:old-leader@leader-change", Trigger: "leader-change", Start: 0, End: 20 * time.Second,
		Detail: "never fired: no leader-change event in the 20.0s the trigger was armed"})
	c.Watch = &record.WatchSummary{Events: map[string]int{}, Notes: map[string]string{"logs": "this runtime cannot follow node logs"}}
	s.Res.Cells[1] = *c
	page := pageOf(t, reportstest.WriteRun(t, s))
	for _, w := range []string{
		`<td>kill:old-leader@leader-change</td><td></td><td class="num">0.0 s</td><td class="num">20.0 s</td><td class="num">–</td><td class="num">–</td>` +
			`<td class="unk">never fired</td><td class="trigger">leader-change: never fired (armed 0.0–20.0 s)</td>`,
		"(each is a marker over the charts): none.</p>",
		`<td class="unk">partition-leader: 2 injected, 2 verified, 1 trigger never fired</td>`,
		`<p class="note warn">not followed (logs): this runtime cannot follow node logs</p>`,
	} {
		if !strings.Contains(page, w) {
			t.Errorf("page lacks %q", w)
		}
	}
}

func TestWatchWords(t *testing.T) {
	ev := func(k watch.Kind) watch.Event { return watch.Event{Kind: k, Node: "n1", Source: "poll"} }
	watched := func(counts map[string]int, notes map[string]string) record.CellResult {
		return record.CellResult{Watch: &record.WatchSummary{Events: counts, Notes: notes}}
	}
	cases := []struct {
		name   string
		c      Cell
		counts string
		notes  []string
	}{
		{"not watched", Cell{}, "", nil},
		{"events", Cell{CellResult: watched(map[string]int{"restart": 1, "leader-change": 2, "log": 1}, nil),
			Events: []watch.Event{ev(watch.Log), ev(watch.Restart), ev(watch.LeaderChange), ev(watch.LeaderChange)}},
			"leader-change 2, restart 1, log 1", nil},
		{"file missing", Cell{CellResult: watched(map[string]int{"restart": 3}, nil)},
			"restart 3", []string{"cluster-events.jsonl is missing: the 3 events results.json counts are not drawn"}},
		{"before the history", Cell{CellResult: watched(map[string]int{"log": 2}, nil), Events: []watch.Event{{Kind: watch.Log, At: -time.Second, Source: "log"}, ev(watch.Log)}},
			"log 2", []string{"1 event came before the history started, off the charts' time axis"}},
		{"file and counts disagree", Cell{CellResult: watched(map[string]int{"restart": 3}, nil), Events: []watch.Event{ev(watch.Restart)}},
			"restart 1", []string{"cluster-events.jsonl holds 1 event, results.json counts 3: the charts draw the file's"}},
		{"unreadable, notes", Cell{CellResult: watched(map[string]int{}, map[string]string{"poll": "n2 did not answer", "logs": "no logs"}), EventsErr: "x:1: bad"},
			"none", []string{"cluster-events.jsonl could not be read, so no event is drawn: x:1: bad", "not followed (logs): no logs", "not followed (poll): n2 did not answer"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			counts, notes := watchWords(&tc.c)
			if counts != tc.counts || strings.Join(notes, "|") != strings.Join(tc.notes, "|") {
				t.Errorf("got %q %q, want %q %q", counts, notes, tc.counts, tc.notes)
			}
		})
	}
}
