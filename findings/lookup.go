package findings

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// Lookups in the stored history and stream. Each answers with one op or
// entry picked by what it is (a revision, the latest before a time), never
// by a count over the history, so a history trimmed to the ops a finding
// cites gives the same finding (testdata relies on it).

// nearFault reports whether a window of the named fault (alone or in a
// combination) lies within faultMargin of the span.
func (c *cell) nearFault(span [2]int64, fault string) bool {
	for _, w := range c.res.Faults {
		if int64(w.End)+int64(faultMargin) < span[0] || int64(w.Start)-int64(faultMargin) > span[1] {
			continue
		}
		for _, f := range strings.Split(w.Fault, "+") {
			if f == fault {
				return true
			}
		}
	}
	return false
}

// readBackNote says how the stream was read back.
func (c *cell) readBackNote() string {
	s := "The stream as read back after the final heal"
	if r := c.res.Recovery; r != nil && r.Recovered {
		s += " and the wait for recovery (" + r.Detail + ")"
	}
	s += ", with an ordered consumer from its first message to the last sequence its stream info reported"
	if c.head.Complete {
		s += fmt.Sprintf("; the read reached that sequence: %s.", plural(c.head.Count, "entry", "entries"))
	} else {
		s += fmt.Sprintf("; the read did NOT reach that sequence (%s read).", plural(c.head.Count, "entry", "entries"))
	}
	return s
}

// timelinePatterns pick the server log lines about a stream's replicas and
// leadership (the lines nats-server jetstream_cluster.go logs about them).
var timelinePatterns = []string{
	"Starting nats-server", "new stream leader", "Restored ", "Catchup for stream", "resetting first sequence", "Resetting stream",
	"NO quorum", "Stream state outdated", "Falling behind", "truncat", "Truncat", "stream state",
	"Expected first catchup entry",
}

// corePatterns are the lines around which a lost-write finding shows
// every node's log.
var corePatterns = []string{"resetting first sequence", "Resetting stream", "truncat", "Truncat", "Catchup for stream"}

// logEvents are the log lines matching the patterns, as timeline events.
func (c *cell) logEvents(patterns []string) []event {
	var out []event
	for _, nl := range c.matching(patterns) {
		for _, l := range nl.Lines {
			out = append(out, event{at: l.Time, node: nl.Node, what: "`" + logText(l.Text) + "`"})
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].at.Before(out[b].at) })
	return out
}

// logText is a log line without its pid and time prefix.
func logText(l string) string {
	if m := logTime.FindStringIndex(l); m != nil {
		return l[m[1]:]
	}
	return l
}

func durNs(ns int64) time.Duration { return time.Duration(ns) }

// leaderText lists the stream leader changes the logs show up to until:
// a node logs "JetStream cluster new stream leader" when it becomes the
// leader (jetstream_cluster.go, processStreamLeaderChange).
func (c *cell) leaderText(until time.Time) string {
	var parts []string
	for _, e := range c.logEvents([]string{"new stream leader for"}) {
		if e.at.After(until) {
			break
		}
		parts = append(parts, fmt.Sprintf("%s at %s (%s)", e.node, c.rel(e.at), clock(e.at)))
	}
	if len(parts) == 0 {
		return ""
	}
	return "Stream leaders, from the servers' logs (a node logs `JetStream cluster new stream leader` when it becomes the leader): " + strings.Join(parts, ", then ") + "."
}

// matching is the log lines matching the patterns (logs.go matching),
// marked as read.
func (c *cell) matching(patterns []string) []nodeLog {
	nls := matching(c.logs, c.nodes, patterns)
	for _, nl := range nls {
		c.markLines(nl.Node, nl.Lines)
	}
	return nls
}
