package catchup

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
)

// SlopeFit is what SlopeLines makes of a run's cells.
type SlopeFit struct {
	// Lines are the versions (and Direct Get settings) whose cells hold at
	// least two --backlog settings, fitted or not.
	Lines []SlopeLine
	// Bound is the strictest --max-memory-slope of the cells.
	Bound float64
	// LeftOut are the cells of no known line (catchup.json unreadable or
	// without --backlog); a line's own are in SlopeLine.LeftOut.
	LeftOut []LeftOutCell
}

// LeftOutCell is a cell that gives no point, and why.
type LeftOutCell struct {
	Cell string `json:"cell"`
	Why  string `json:"why"`
}

// lineKey is what a line's cells share.
type lineKey struct {
	version   string
	directGet bool
}

// SlopeLines reads the cells into one line per version and Direct Get
// setting whose cells hold two --backlog settings or more, fitted when its
// points still do (slopePoint leaves some cells out). A point is placed at
// the bytes its target caught up, but backlogs are told apart by the
// setting: two runs of one --backlog differ by the few MiB published while
// the target was down, and a line through them fits noise (two runs of 2
// GiB, 4 MiB apart in the stream and 40 MiB in peak RSS, once gave 10 bytes
// of RSS per byte). A censored point (censorOf) is fitted at the least its
// demand was.
func SlopeLines(cellDirs []string) SlopeFit {
	var fit SlopeFit
	groups := map[lineKey]*SlopeLine{}
	backlogs := map[lineKey]map[int64]bool{}
	for _, d := range cellDirs {
		name := filepath.Base(d)
		r, err := Load(d)
		switch {
		case err != nil:
			fit.LeftOut = append(fit.LeftOut, LeftOutCell{name, "cannot be read: " + err.Error()})
			continue
		case r.Options.Backlog <= 0:
			fit.LeftOut = append(fit.LeftOut, LeftOutCell{name, ResultFile + " records no --backlog"})
			continue
		}
		b := r.Options.MaxMemorySlope
		if b <= 0 {
			b = DefaultMaxSlope
		}
		if fit.Bound == 0 || b < fit.Bound {
			fit.Bound = b
		}
		k := lineKey{r.ServerVersion, r.Options.DirectGet}
		if groups[k] == nil {
			groups[k], backlogs[k] = &SlopeLine{ServerVersion: k.version, DirectGet: k.directGet}, map[int64]bool{}
		}
		backlogs[k][int64(r.Options.Backlog)] = true
		if p, why := slopePoint(&r, name); why != "" {
			groups[k].LeftOut = append(groups[k].LeftOut, LeftOutCell{name, why})
		} else {
			groups[k].Points = append(groups[k].Points, p)
		}
	}
	for k, l := range groups {
		l.Backlogs = len(backlogs[k])
		if l.Backlogs < 2 { // one --backlog: the check does not apply to it
			continue
		}
		sort.Slice(l.Points, func(i, j int) bool { return l.Points[i].Backlog < l.Points[j].Backlog })
		if l.Fitted = distinctBacklogs(l.Points) >= 2; l.Fitted {
			l.Slope, l.Intercept = fitLine(l.Points)
		}
		fit.Lines = append(fit.Lines, *l)
	}
	sort.Slice(fit.Lines, func(i, j int) bool {
		if fit.Lines[i].ServerVersion != fit.Lines[j].ServerVersion {
			return fit.Lines[i].ServerVersion < fit.Lines[j].ServerVersion
		}
		return fit.Lines[i].DirectGet
	})
	return fit
}

// slopePoint is the cell's point, or why it gives none.
func slopePoint(r *Result, cell string) (SlopeCell, string) {
	if r.CatchUp.RestartAtMs == 0 {
		return SlopeCell{}, "the target never restarted, so no catch-up was measured"
	}
	peak := r.CatchUp.PeakRSSDuring
	t := r.TargetMemory()
	if t != nil {
		peak = t.PeakRSS
	}
	c := censorOf(r, t, peak)
	p := SlopeCell{Cell: cell, Asked: int64(r.Options.Backlog), Backlog: int64(r.Stream.RestartBytes),
		PeakRSS: peak, Demand: c.demandAtLeast(peak)}
	if c.censored() {
		p.Censored = c.words()
	}
	if p.Demand <= 0 { // catchup-memory says unknown
		return SlopeCell{}, fmt.Sprintf("%s sent no RSS sample from its restart to the heal", r.Target)
	}
	return p, ""
}

// distinctBacklogs counts the --backlog settings among the points.
func distinctBacklogs(ps []SlopeCell) int {
	seen := map[int64]bool{}
	for _, p := range ps {
		seen[p.Asked] = true
	}
	return len(seen)
}

// fitLine is the least-squares line through the points' demands.
func fitLine(ps []SlopeCell) (slope, intercept float64) {
	n := float64(len(ps))
	var sx, sy, sxx, sxy float64
	for _, p := range ps {
		x, y := float64(p.Backlog), float64(p.Demand)
		sx, sy, sxx, sxy = sx+x, sy+y, sxx+x*x, sxy+x*y
	}
	den := n*sxx - sx*sx
	if den == 0 {
		return 0, sy / n
	}
	slope = (n*sxy - sx*sy) / den
	return slope, (sy - slope*sx) / n
}

// leftOutWords lists cells and why: "a (why); b (why)".
func leftOutWords(cs []LeftOutCell) string {
	var s []string
	for _, c := range cs {
		s = append(s, fmt.Sprintf("%s (%s)", c.Cell, c.Why))
	}
	return strings.Join(s, "; ")
}
