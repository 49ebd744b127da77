package reports

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/nemesis"
	"github.com/jetstream-chaos/jetstream-chaos/watch"
)

// What a watched cell adds to its page: the watcher's events and the
// triggered windows as markers over the charts (lane.go draws them), the
// trigger of each window in the faults table, and the watch's coverage.
// A cell that was not watched has none of it, and its page is as before.

// laneItem is one marker over a chart's data: an event the watcher saw,
// or the instant a triggered fault took effect.
type laneItem struct {
	X     float64 // seconds since the history's start
	Kind  string  // the event's kind; empty for an effect
	Label string  // beside the marker: the event's node, an effect's delay
	Title string  // on hover: everything known of it
	// key names an event; an effect's of is the key of the event that
	// fired it, so the two are joined on the chart.
	key, of string
}

func (it laneItem) effect() bool { return it.Kind == "" }

func eventKey(e watch.Event) string { return fmt.Sprintf("%s|%d|%s", e.Kind, e.At, e.Node) }

// cellLane is every event of the cell, plus each triggered window's event
// when cluster-events.jsonl lacks it, and the instant each triggered fault took
// effect, in order of time.
func cellLane(c *Cell) []laneItem {
	var items []laneItem
	seen := map[string]bool{}
	addEvent := func(e watch.Event) {
		if k := eventKey(e); !seen[k] {
			seen[k] = true
			items = append(items, laneItem{X: e.At.Seconds(), Kind: string(e.Kind), Label: e.Node, Title: eventTitle(e), key: k})
		}
	}
	for _, e := range c.Events {
		addEvent(e)
	}
	for _, w := range c.Faults {
		if w.Event == nil {
			continue
		}
		addEvent(*w.Event)
		if d, ok := w.EventToEffect(); ok && w.Injected {
			items = append(items, laneItem{X: w.Effect.Seconds(), Label: signedMs(d), of: eventKey(*w.Event),
				Title: windowName(w) + ": " + aimWords(w)})
		}
	}
	slices.SortStableFunc(items, func(a, b laneItem) int { return cmp.Compare(a.X, b.X) })
	return items
}

// laneEnd is the time of the last marker, 0 for none.
func laneEnd(items []laneItem) float64 {
	if len(items) == 0 {
		return 0
	}
	return items[len(items)-1].X
}

// eventTitle is an event in words, and a log line's text under it.
func eventTitle(e watch.Event) string {
	s := e.String()
	if e.Line != "" {
		s += "\n" + e.Line
	}
	return s
}

func windowName(w nemesis.Window) string {
	if len(w.Targets) == 0 {
		return w.Fault
	}
	return w.Fault + " " + strings.Join(w.Targets, ",")
}

// signedMs is a delay after an event, "+212 ms"; a negative one (the
// event's own time is a log line's, the effect the harness's clock) keeps
// its sign.
func signedMs(d time.Duration) string {
	if d < 0 {
		return "−" + FormatMs(float64(-d)/1e6)
	}
	return "+" + FormatMs(float64(d)/1e6)
}

// triggerWords is what the faults table says of a window's trigger:
// empty for a window of the clock.
func triggerWords(w nemesis.Window) string {
	switch {
	case w.Trigger == "":
		return ""
	case w.NeverFired():
		return fmt.Sprintf("%s: never fired (armed %.1f–%.1f s)", w.Trigger, w.Start.Seconds(), w.End.Seconds())
	case w.Event == nil:
		return w.Trigger + ": no event fired it"
	}
	return w.Trigger + ": " + aimWords(w)
}

// aimWords is when a fired window's fault took effect after its event,
// and each replica's lag then.
func aimWords(w nemesis.Window) string {
	d, ok := w.EventToEffect()
	switch {
	case !w.Injected:
		return "fired by " + w.Event.String() + "; not injected"
	case !ok:
		return "fired by " + w.Event.String() + "; no control call changed the cluster, so no effect time"
	}
	when := fmt.Sprintf("effect %s after %s", FormatMs(float64(d)/1e6), w.Event.String())
	if d < 0 {
		when = fmt.Sprintf("effect %s before the recorded time of %s", FormatMs(float64(-d)/1e6), w.Event.String())
	}
	return when + fmt.Sprintf(" (effect at %.3f s); lag then: %s", w.Effect.Seconds(), lagWords(w.Lag, ", "))
}

// lagWords lists each replica's lag behind the stream's leader, in raft
// entries.
func lagWords(lag map[string]uint64, sep string) string {
	if len(lag) == 0 {
		// The watcher reads the lag from the stream leader's /jsz.
		return "not known (the watcher's last poll had no replica lag from the stream's leader)"
	}
	var parts []string
	for _, n := range sortedKeys(lag) {
		parts = append(parts, n+" "+FormatCount(int64(lag[n])))
	}
	return strings.Join(parts, sep)
}

// watchWords is a watched cell's coverage: its events by kind, then
// notes on what could not be followed or read. Both empty: not watched.
func watchWords(c *Cell) (counts string, notes []string) {
	if c.Watch == nil && len(c.Events) == 0 && c.EventsErr == "" {
		return "", nil
	}
	byKind := map[string]int{}
	for _, e := range c.Events {
		byKind[string(e.Kind)]++
	}
	total := 0
	if c.Watch != nil {
		for _, n := range c.Watch.Events {
			total += n
		}
		if len(c.Events) == 0 && c.EventsErr == "" {
			byKind = c.Watch.Events // cluster-events.jsonl is missing: the counts are all there is
		}
	}
	counts = joinKinds(byKind)
	switch {
	case c.EventsErr != "":
		notes = append(notes, "cluster-events.jsonl could not be read, so no event is drawn: "+c.EventsErr)
	case c.Watch != nil && len(c.Events) == 0 && total > 0:
		notes = append(notes, fmt.Sprintf("cluster-events.jsonl is missing: the %s results.json counts are not drawn", Plural(total, "event", "events")))
	case c.Watch != nil && len(c.Events) != total:
		notes = append(notes, fmt.Sprintf("cluster-events.jsonl holds %s, results.json counts %d: the charts draw the file's", Plural(len(c.Events), "event", "events"), total))
	}
	early := 0
	for _, e := range c.Events {
		if e.At < 0 {
			early++
		}
	}
	if early > 0 {
		// A log line carries its own time, which may precede the history.
		notes = append(notes, fmt.Sprintf("%s before the history started, off the charts' time axis", Plural(early, "event came", "events came")))
	}
	if c.Watch != nil {
		for _, src := range sortedKeys(c.Watch.Notes) {
			notes = append(notes, "not followed ("+src+"): "+c.Watch.Notes[src])
		}
	}
	return counts, notes
}

// joinKinds writes counts by kind in the order of watch.Kinds, then log
// and any other kind by name: "leader-change 2, restart 1"; "none".
func joinKinds(byKind map[string]int) string {
	order := func(k string) int {
		if i := slices.Index(watch.Kinds, watch.Kind(k)); i >= 0 {
			return i
		}
		return len(watch.Kinds)
	}
	ks := sortedKeys(byKind)
	slices.SortStableFunc(ks, func(a, b string) int { return cmp.Compare(order(a), order(b)) })
	var parts []string
	for _, k := range ks {
		parts = append(parts, fmt.Sprintf("%s %s", k, FormatCount(byKind[k])))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
