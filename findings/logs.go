package findings

import (
	"regexp"
	"sort"
	"strings"
	"time"
)

// logLine is one nats-server log line: `[1] 2026/12/01 16:03:44.129274 [INF] text`.
// Lines without a time (a banner continued, a stack trace) take the time
// of the line before them.
type logLine struct {
	No   int // 1-based line number in the file
	Time time.Time
	Text string // the line as written
}

// logTime matches the server's default log prefix: an optional [pid],
// then date and time with microseconds (server/log.go, LogUTC off).
var logTime = regexp.MustCompile(`^(?:\[\d+\] )?(\d{4}/\d{2}/\d{2} \d{2}:\d{2}:\d{2}\.\d{6}) `)

func parseLog(s string, zone *time.Location) []logLine {
	var out []logLine
	var last time.Time
	for i, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		if m := logTime.FindStringSubmatch(l); m != nil {
			if t, err := time.ParseInLocation("2006/01/02 15:04:05.000000", m[1], zone); err == nil {
				last = t
			}
		}
		if l == "" || last.IsZero() {
			continue
		}
		out = append(out, logLine{No: i + 1, Time: last, Text: l})
	}
	return out
}

// span is a wall-clock interval.
type span struct{ from, to time.Time }

func (s span) has(t time.Time) bool { return !t.Before(s.from) && !t.After(s.to) }

// logWindow is how far around an op a server log line is shown.
const logWindow = time.Second

// maxLogLines caps the lines shown per node.
const maxLogLines = 25

// routeChurn marks the lines a node logs for every route connection it
// makes or loses: many around a partition's heal, and least telling.
var routeChurn = []string{"Route connection created", "Router connection closed", "Error trying to connect to route", "Route Error"}

func isChurn(l logLine) bool {
	for _, p := range routeChurn {
		if strings.Contains(l.Text, p) {
			return true
		}
	}
	return false
}

// nodeLog is the lines of one node's log shown in a finding.
type nodeLog struct {
	Node  string
	Lines []logLine
	Total int       // lines in the spans, before the cap
	all   []logLine // those lines
}

// linesNear picks each node's lines within the spans, at most maxLogLines
// per node, shown in file order: the lines that are not route churn first,
// then the churn nearest a span's centre.
func linesNear(logs map[string][]logLine, nodes []string, spans []span) []nodeLog {
	var out []nodeLog
	for _, n := range nodes {
		var in []logLine
		for _, l := range logs[n] {
			for _, s := range spans {
				if s.has(l.Time) {
					in = append(in, l)
					break
				}
			}
		}
		nl := nodeLog{Node: n, Total: len(in), Lines: in, all: in}
		if len(in) > maxLogLines {
			var telling, churn []logLine
			for _, l := range in {
				if isChurn(l) {
					churn = append(churn, l)
				} else {
					telling = append(telling, l)
				}
			}
			kept := nearest(telling, spans, min(len(telling), maxLogLines))
			kept = append(kept, nearest(churn, spans, min(len(churn), maxLogLines-len(kept)))...)
			sort.Slice(kept, func(a, b int) bool { return kept[a].No < kept[b].No })
			nl.Lines = kept
		}
		out = append(out, nl)
	}
	return out
}

func nearest(in []logLine, spans []span, n int) []logLine {
	dist := func(l logLine) time.Duration {
		best := time.Duration(1<<63 - 1)
		for _, s := range spans {
			mid := s.from.Add(s.to.Sub(s.from) / 2)
			d := l.Time.Sub(mid)
			if d < 0 {
				d = -d
			}
			best = min(best, d)
		}
		return best
	}
	kept := append([]logLine(nil), in...)
	sort.SliceStable(kept, func(a, b int) bool { return dist(kept[a]) < dist(kept[b]) })
	kept = kept[:n]
	sort.Slice(kept, func(a, b int) bool { return kept[a].No < kept[b].No })
	return kept
}

// matching is every line of every node whose text contains one of the
// patterns, in file order per node.
func matching(logs map[string][]logLine, nodes []string, patterns []string) []nodeLog {
	var out []nodeLog
	for _, n := range nodes {
		nl := nodeLog{Node: n}
		for _, l := range logs[n] {
			for _, p := range patterns {
				if strings.Contains(l.Text, p) {
					nl.Lines = append(nl.Lines, l)
					break
				}
			}
		}
		nl.Total = len(nl.Lines)
		if nl.Total > 0 {
			out = append(out, nl)
		}
	}
	return out
}

// serverVersion is what the node's log banner says ("  Version:  2.15.3"),
// the first line of it, or "".
func serverVersion(lines []logLine) (string, logLine) {
	for _, l := range lines {
		if i := strings.Index(l.Text, "]   Version:  "); i >= 0 {
			return strings.TrimSpace(l.Text[i+len("]   Version:  "):]), l
		}
	}
	return "", logLine{}
}
