package sources

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
)

// CheckStall is source-stall's name.
const CheckStall = "source-stall"

// The server's own retry of a copy (nats-server v2.15.3 server/stream.go):
// every sourceHealthCheckInterval (10 s) a copy's leader recreates the
// consumer of a source it heard nothing from, message or heartbeat
// (sent every second), for that long (processAllSourceMsgs,
// processMirrorMsgs); a failed setup retries after 10 s per failure so
// far, at most retryMaximum (2 min) (calculateRetryBackoff).
const (
	healthCheckMs = 10_000
	// retryBound is how long after the heal a copy that heard nothing may
	// wait for the server's next retry: the longest backoff, a health
	// check, and a second of slack.
	retryBound = 2*time.Minute + 11*time.Second
)

// checkStall judges each copy (the mirror, and the sourced stream per
// origin) from the copy samples, from the last heal (or the first sample,
// without faults) until a sample shows it holding its origin's last
// sequence of the same sample. A sample reads the origins first, so a
// copy that keeps up shows caught up in nearly every sample.
//   - stalled: longer than --copy-bound the copy did not advance while it
//     was behind and its leader had heard from the origin within the
//     health-check interval (Active at most 10 s). The server counts such a
//     source healthy and never recreates it, so nothing but an operator
//     ends the stall (the shape of PR 8323's thread).
//   - silent: the copy heard nothing from its origin for longer than the
//     server's longest retry backoff plus a health check (retryBound),
//     while behind: shown by samples at one origin sequence under one
//     leader, none in contact, or by one sample's Active.
//
// Every span is between samples that show it: an unreadable sample or a
// leader change of the copy's stream ends it.
//
// A copy that caught up later than --copy-bound while it heard nothing,
// within retryBound, waited for the server's backoff: counted as
// retry_backoff, not an anomaly. The examples say how long the copy stayed
// behind and whether the finish's leader step-down of its stream ended it.
// Each copy's longest stretch behind over the whole cell is counted too
// (longest_behind_ms). Unknown when no sample after the heal read the copy.
func checkStall(c *Cell, maxEx int) checker.Result {
	b := checker.NewBuilder(CheckStall, maxEx)
	bound := c.Options.CopyBound.D().Nanoseconds()
	from := c.Ops.Heal()
	if from == 0 && len(c.Ops.Copies) > 0 {
		from = c.Ops.Copies[0].At
	}
	links := linkNames(c)
	for _, l := range links {
		tl := timeline(c, l)
		b.Counts["longest_behind_ms"] = max(b.Counts["longest_behind_ms"], int(tl.longest/1e6))
		up, seen := tl.caughtUpAfter(from)
		// The proof is in the samples: the last one after the heal that
		// still found the copy behind, not the first that found it caught
		// up (the finish samples again only after the recovery wait).
		behind := tl.lastBehind(from, up)
		switch {
		case !seen:
			b.Unsure("unsampled", "no sample after the heal read "+l, nil)
		case tl.stretch(from, up, true) > bound:
			b.Flag("stalled", func() checker.Anomaly { return stallExample(c, l, from, up, tl) })
		case max(tl.stretch(from, up, false), tl.silence(from, up)) > retryBound.Nanoseconds():
			b.Flag("silent", func() checker.Anomaly { return stallExample(c, l, from, up, tl) })
		case behind-from > bound:
			b.Counts["retry_backoff"]++
		default:
			b.Counts["caught_up"]++
		}
	}
	n := b.Counts["stalled"] + b.Counts["silent"]
	clean := fmt.Sprintf("all %d copies caught up within --copy-bound %s after the heal", len(links), c.Options.CopyBound.D())
	if k := b.Counts["retry_backoff"]; k > 0 {
		clean = fmt.Sprintf("all %d copies caught up after the heal, %d of them later than --copy-bound %s while waiting for the server's retry backoff (up to %s)",
			len(links), k, c.Options.CopyBound.D(), retryBound)
	}
	b.Summarize(fmt.Sprintf("%d of %d copies stalled after the heal (%d with their origin in contact, %d silent past the server's longest retry)",
		n, len(links), b.Counts["stalled"], b.Counts["silent"]),
		fmt.Sprintf("%s (longest behind: %s)", clean, time.Duration(b.Counts["longest_behind_ms"])*time.Millisecond))
	return b.Result
}

// inContact says a copy's leader reported hearing from its origin within
// the server's health-check interval: the server counts it healthy.
func inContact(activeMs *int64) bool {
	return activeMs != nil && *activeMs >= 0 && *activeMs <= healthCheckMs
}

// stretch is the longest time after from, and before up when up is not
// -1, between two samples that found the copy behind at one origin
// sequence, under one leader, and in contact with its origin or not as
// contact says, with every sample between them finding it so. The origin
// only grows, so the copy copied nothing in between. An unreadable sample
// or a leader change ends a stretch: nothing then proves it went on.
func (tl line) stretch(from, up int64, contact bool) int64 {
	var longest int64
	start, last := int64(-1), int64(-1)
	var held uint64
	var leader string
	for _, p := range tl.points {
		if p.at < from {
			continue
		}
		if up >= 0 && p.at >= up {
			break
		}
		stuck := p.ok && p.behind && inContact(p.active) == contact
		if start >= 0 && (!stuck || p.copied != held || p.leader != leader) {
			longest, start = max(longest, last-start), -1
		}
		if stuck {
			if start < 0 {
				start, held, leader = p.at, p.copied, p.leader
			}
			last = p.at
		}
	}
	if start >= 0 {
		longest = max(longest, last-start)
	}
	return longest
}

// silence is the longest silence after from, and before up when up is
// not -1, that one sample proves: a copy behind whose leader last heard
// from its origin Active ago.
func (tl line) silence(from, up int64) int64 {
	var longest int64
	for _, p := range tl.points {
		if p.at < from || (up >= 0 && p.at >= up) || !p.ok || !p.behind || p.active == nil || *p.active < 0 {
			continue
		}
		longest = max(longest, min(*p.active*int64(time.Millisecond), p.at-from))
	}
	return longest
}

// lastBehind is the time of the last sample at or after from, and before
// up when up is not -1, that found the copy behind; from when none did.
func (tl line) lastBehind(from, up int64) int64 {
	at := from
	for _, p := range tl.points {
		if p.at >= from && p.ok && p.behind && (up < 0 || p.at < up) {
			at = p.at
		}
	}
	return at
}

// linkNames are the cell's copies, "origin -> copy".
func linkNames(c *Cell) []string {
	var out []string
	if m := c.Options.Mirror(); m != "" {
		out = append(out, c.Options.Origin(1)+" -> "+m)
	}
	for _, o := range c.Options.OriginNames() {
		out = append(out, o+" -> "+c.Options.Sourced())
	}
	return out
}

// point is one sample of one copy: behind says it did not hold its
// origin's last sequence, ok that the sample read both.
type point struct {
	at         int64
	ok, behind bool
	copied     uint64
	head       uint64
	active     *int64 // the copy's Active, ms (-1: never heard from; nil: not reported)
	op         int    // the sample's op
	leader     string // the copy stream's leader
}

type line struct {
	points  []point
	longest int64 // the longest stretch behind, ns
	// since is when the stretch behind that the last sample is in began,
	// -1 when the last sample was caught up.
	since int64
}

// timeline is one copy's samples.
func timeline(c *Cell, link string) line {
	var tl line
	var since int64 = -1
	for _, s := range c.Ops.Copies {
		heads := map[string]Head{}
		for _, h := range s.Origins {
			heads[h.Name] = h
		}
		for _, l := range s.Links {
			if l.From+" -> "+l.To != link {
				continue
			}
			h := heads[l.From]
			at := s.At
			if l.At > 0 {
				at = l.At // read after the origins, before the sample's end
			}
			p := point{at: at, ok: h.Error == "" && l.Error == "", copied: l.Copied, head: h.LastSeq, active: l.ActiveMs, op: s.Op, leader: l.Leader}
			p.behind = p.ok && l.Copied < h.LastSeq
			tl.points = append(tl.points, p)
			switch {
			case p.behind && since < 0:
				since = p.at
			case p.ok && !p.behind && since >= 0:
				tl.longest, since = max(tl.longest, p.at-since), -1
			}
		}
	}
	if since >= 0 && len(tl.points) > 0 {
		tl.longest = max(tl.longest, tl.points[len(tl.points)-1].at-since)
	}
	tl.since = since
	return tl
}

// caughtUpAfter is the first sample at or after from that read the copy
// caught up (-1: none), and whether any sample after from read it.
func (tl line) caughtUpAfter(from int64) (int64, bool) {
	seen := false
	for _, p := range tl.points {
		if p.at < from || !p.ok {
			continue
		}
		seen = true
		if !p.behind {
			return p.at, true
		}
	}
	return -1, seen
}

func stallExample(c *Cell, link string, from, up int64, tl line) checker.Anomaly {
	behind := tl.lastBehind(from, up)
	p := tl.points[0]
	for _, q := range tl.points {
		if q.at == behind {
			p = q
		}
	}
	desc := fmt.Sprintf("%s still held origin sequence %d of %d %s after the heal (%s), past --copy-bound %s", link, p.copied, p.head,
		time.Duration(behind-from).Round(time.Millisecond), secs(from), c.Options.CopyBound.D())
	if up >= 0 {
		desc += fmt.Sprintf("; a sample found it caught up %s after the heal", time.Duration(up-from).Round(time.Millisecond))
	}
	if s := stuckSince(tl, from); s >= 0 {
		desc += fmt.Sprintf("; it held origin sequence %d from %s on, while the origin grew to %d", copiedAt(tl, s), secs(s), maxHead(tl))
	}
	for _, sd := range c.Ops.StepDowns {
		if !strings.HasSuffix(link, " -> "+sd.Stream) {
			continue
		}
		after, _ := tl.caughtUpAfter(sd.H.Complete)
		switch {
		case sd.H.Outcome != "ok":
			desc += fmt.Sprintf("; the step-down of %s's leader failed (%s)", sd.Stream, sd.H.ErrMsg)
		case after >= 0:
			desc += fmt.Sprintf("; a step-down of %s's leader ended it %s later", sd.Stream, time.Duration(after-sd.H.Complete).Round(time.Millisecond))
		default:
			desc += fmt.Sprintf("; a step-down of %s's leader did not end it", sd.Stream)
		}
	}
	a := checker.Anomaly{Key: link, Description: desc}
	// The evidence: the sample the copy stopped at, the last one behind,
	// any step-down, and the sample that found it caught up.
	var ops []int
	if s := stuckSince(tl, from); s >= 0 {
		ops = append(ops, tl.opAt(s))
	}
	for _, p := range tl.points {
		if p.ok && p.behind && p.at >= from && (up < 0 || p.at < up) {
			ops = append(ops[:min(len(ops), 1)], p.op)
		}
	}
	for _, sd := range c.Ops.StepDowns {
		if strings.HasSuffix(link, " -> "+sd.Stream) {
			ops = append(ops, sd.Op)
		}
	}
	if up >= 0 {
		ops = append(ops, tl.opAt(up))
	}
	slices.Sort(ops)
	for _, n := range slices.Compact(ops) {
		if n >= 0 && n < len(c.Ops.All) {
			a.Ops = append(a.Ops, checker.OpRef{Index: n, Op: c.Ops.All[n]})
		}
	}
	return a
}

// stuckSince is when the copy last moved before it stalled: the first
// sample of the run of samples, ending after from, that all hold the same
// origin sequence while behind; -1 without one.
func stuckSince(tl line, from int64) int64 {
	at := int64(-1)
	var held uint64
	for _, p := range tl.points {
		if !p.ok {
			continue
		}
		switch {
		case !p.behind:
			if p.at > from {
				return at
			}
			at = -1
		case at < 0 || p.copied != held:
			at, held = p.at, p.copied
		}
	}
	return at
}

// opAt is the op of the sample at at, or -1.
func (tl line) opAt(at int64) int {
	for _, p := range tl.points {
		if p.at == at {
			return p.op
		}
	}
	return -1
}

func copiedAt(tl line, at int64) uint64 {
	for _, p := range tl.points {
		if p.at == at {
			return p.copied
		}
	}
	return 0
}

func maxHead(tl line) uint64 {
	var m uint64
	for _, p := range tl.points {
		m = max(m, p.head)
	}
	return m
}

// secs is a history time as the reports write it.
func secs(ns int64) string { return fmt.Sprintf("%.1f s", float64(ns)/1e9) }
