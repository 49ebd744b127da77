package sources

import (
	"fmt"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
)

// CheckStall is source-stall's name.
const CheckStall = "source-stall"

// checkStall judges each copy (the mirror, and the sourced stream per
// origin) from the copy samples: after the last heal (or from the first
// sample, without faults) a copy must hold its origin's last sequence of
// the same sample within CopyBound. A sample reads the origins first, so
// a copy that keeps up shows caught up in nearly every sample.
//   - stalled: no sample caught the copy up within the bound; the example
//     says how long it stayed behind, and whether the finish's leader
//     step-down of the copy's stream was followed by a catch-up.
//
// Each copy's longest stretch behind over the whole cell is counted too
// (longest_behind_ms). Unknown when no sample after the heal could read
// the copy.
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
		switch {
		case !seen:
			b.Unsure("unsampled", "no sample after the heal read "+l, nil)
		case up < 0 || up-from > bound:
			b.Flag("stalled", func() checker.Anomaly { return stallExample(c, l, from, up, tl) })
		default:
			b.Counts["caught_up"]++
		}
	}
	b.Summarize(fmt.Sprintf("%d of %d copies not caught up within --copy-bound %s after the heal", b.Counts["stalled"], len(links), c.Options.CopyBound.D()),
		fmt.Sprintf("all %d copies caught up within --copy-bound %s after the heal (longest behind: %s)", len(links), c.Options.CopyBound.D(),
			time.Duration(b.Counts["longest_behind_ms"])*time.Millisecond))
	return b.Result
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
			p := point{at: s.At, ok: h.Error == "" && (l.Error == "" || l.Copied > 0), copied: l.Copied, head: h.LastSeq}
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
	last := tl.points[len(tl.points)-1]
	desc := fmt.Sprintf("%s held origin sequence %d of %d at the last sample, %s after the heal", link, last.copied, last.head,
		time.Duration(last.at-from).Round(time.Millisecond))
	if up >= 0 {
		desc = fmt.Sprintf("%s caught up %s after the heal (%s), past --copy-bound %s", link, time.Duration(up-from).Round(time.Millisecond),
			secs(from), c.Options.CopyBound.D())
	}
	if s := stuckSince(tl, from); s >= 0 {
		desc += fmt.Sprintf("; it held origin sequence %d from %s on, while the origin grew to %d", copiedAt(tl, s), secs(s), maxHead(tl))
	}
	for _, sd := range c.Ops.StepDowns {
		if sd.Link != link {
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
	for _, sd := range c.Ops.StepDowns {
		if sd.Link == link {
			a.Ops = append(a.Ops, checker.OpRef{Index: sd.Op, Op: sd.H})
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
