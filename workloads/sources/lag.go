package sources

import (
	"math"
	"sort"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// LinkLag is one copy's lag over the cell, sample by sample, for the
// report: how many origin messages it lacked, and how long the oldest of
// them had been acknowledged (NaN where the sample could not read it).
type LinkLag struct {
	Link    string // "origin -> copy"
	At      []int64
	Msgs    []float64
	Seconds []float64
	// Copied is the copy's last origin sequence at the last sample, and
	// Head the origin's.
	Copied, Head uint64
	// Longest is the copy's longest stretch behind, ns.
	Longest int64
}

// Lags is every copy's lag, in linkNames' order.
func Lags(c *Cell) []LinkLag {
	acked := ackTimes(c)
	var out []LinkLag
	for _, link := range linkNames(c) {
		from, _, _ := strings.Cut(link, " -> ")
		tl := timeline(c, link)
		l := LinkLag{Link: link, Longest: tl.longest}
		for _, p := range tl.points {
			l.At = append(l.At, p.at)
			if !p.ok {
				l.Msgs, l.Seconds = append(l.Msgs, math.NaN()), append(l.Seconds, math.NaN())
				continue
			}
			behind, secs := 0.0, 0.0
			if p.copied < p.head {
				behind = float64(p.head - p.copied)
				if at, ok := firstAckAfter(acked[from], p.copied); ok && at < p.at {
					secs = float64(p.at-at) / 1e9
				}
			}
			l.Msgs, l.Seconds = append(l.Msgs, behind), append(l.Seconds, secs)
			l.Copied, l.Head = p.copied, p.head
		}
		out = append(out, l)
	}
	return out
}

// seqAck is when an origin sequence was first acknowledged.
type seqAck struct {
	seq uint64
	at  int64
}

// ackTimes are each origin's acknowledged sequences, in sequence order.
func ackTimes(c *Cell) map[string][]seqAck {
	out := map[string][]seqAck{}
	for _, p := range c.Ops.Publishes {
		if p.H.Outcome == history.OK && p.Seq > 0 && !p.Duplicate {
			out[p.Origin] = append(out[p.Origin], seqAck{p.Seq, p.H.Complete})
		}
	}
	for _, s := range out {
		sort.Slice(s, func(i, j int) bool { return s[i].seq < s[j].seq })
	}
	return out
}

// firstAckAfter is the acknowledgement time of the first acknowledged
// sequence above seq: the oldest message a copy at seq lacks.
func firstAckAfter(s []seqAck, seq uint64) (int64, bool) {
	i := sort.Search(len(s), func(i int) bool { return s[i].seq > seq })
	if i == len(s) {
		return 0, false
	}
	return s[i].at, true
}
