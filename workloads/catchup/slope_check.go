package catchup

import (
	"fmt"
	"sort"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
)

// CheckSlope names the cross-cell check of memory against backlog.
const CheckSlope = "memory-vs-backlog"

// DefaultMaxSlope bounds how fast the catching-up replica's peak RSS may
// grow with the backlog it catches up, in bytes of RSS per byte of stream:
// a replica whose memory is bounded stays flat however large the stream
// is. Measured here (no limit, GOMEMLIMIT unset, 512 MiB-4 GiB): v2.15.3
// 0.55, v2.10.7 0.25, v2.11.8 0.10.
const DefaultMaxSlope = 0.15

// SlopeLine is one line of the memory-against-backlog chart: the cells of
// one server version (and Direct Get setting) and the fitted slope.
type SlopeLine struct {
	ServerVersion string      `json:"server_version"`
	DirectGet     bool        `json:"direct_get"`
	Points        []SlopeCell `json:"points"`
	Slope         float64     `json:"slope"`     // bytes of peak RSS per byte of backlog (least squares)
	Intercept     float64     `json:"intercept"` // bytes
}

// SlopeCell is one cell of a line.
type SlopeCell struct {
	Cell    string `json:"cell"`
	Asked   int64  `json:"asked"`    // the --backlog setting of the cell
	Backlog int64  `json:"backlog"`  // bytes the target caught up (the stream at its restart)
	PeakRSS int64  `json:"peak_rss"` // the target's peak from the restart to the heal
}

// CheckRun fits, per server version and Direct Get setting, the target's
// peak RSS against the backlog it caught up, over the cells of a run that
// differ in --backlog. A slope above the bound is the anomaly; a line of
// fewer than two --backlog settings has no slope to fit and gives no
// result, as a single cell gives none (run.CheckRun): the check does not
// apply to it.
func (workload) CheckRun(cellDirs []string) ([]checker.Result, error) {
	lines, bound := SlopeLines(cellDirs)
	if len(lines) == 0 {
		return nil, nil
	}
	res := checker.Result{Name: CheckSlope, Verdict: checker.Valid, Counts: map[string]int{"lines": len(lines), "steep": 0}}
	var parts []string
	for _, l := range lines {
		word := "flat"
		if l.Slope > bound {
			word = "grows with the backlog"
			res.Counts["steep"]++
			res.Verdict = checker.Invalid
		}
		over := fmt.Sprintf("%d backlogs", distinctBacklogs(l.Points))
		if n := len(l.Points); n > distinctBacklogs(l.Points) {
			over += fmt.Sprintf(" (%d cells)", n)
		}
		parts = append(parts, fmt.Sprintf("%s (Direct Get %s): %.2f bytes of RSS per byte over %s, %s",
			l.ServerVersion, onOff(l.DirectGet), l.Slope, over, word))
	}
	res.Summary = fmt.Sprintf("peak RSS of the catching-up node against the backlog (bound %.2f): %s", bound, strings.Join(parts, "; "))
	return []checker.Result{res}, nil
}

// SlopeLines reads the cells and fits one line per version and Direct
// Get setting with at least two distinct --backlog settings; bound is the
// slope the cells' options allow (the strictest --max-memory-slope given).
// Each point is placed at the bytes its target caught up, but backlogs are
// told apart by the setting: two runs of one --backlog differ by the few
// MiB published while the target was down, and a line through them fits
// noise (two runs of 2 GiB, 4 MiB apart in the stream and 40 MiB in peak
// RSS, once gave 10 bytes of RSS per byte). Cells that cannot be read, did
// not restart the target, record no --backlog or no peak of the target
// are left out.
func SlopeLines(cellDirs []string) ([]SlopeLine, float64) {
	type key struct {
		v  string
		dg bool
	}
	groups := map[key]*SlopeLine{}
	bound := 0.0
	for _, d := range cellDirs {
		r, err := Load(d)
		if err != nil || r.CatchUp.RestartAtMs == 0 || r.Options.Backlog <= 0 {
			continue
		}
		b := r.Options.MaxMemorySlope
		if b <= 0 {
			b = DefaultMaxSlope
		}
		if bound == 0 || b < bound {
			bound = b
		}
		peak := r.CatchUp.PeakRSSDuring
		if t := targetMemory(r); t != nil {
			peak = t.PeakRSS
		}
		if peak <= 0 { // no sample of the target: no point (catchup-memory says unknown)
			continue
		}
		k := key{r.ServerVersion, r.Options.DirectGet}
		if groups[k] == nil {
			groups[k] = &SlopeLine{ServerVersion: k.v, DirectGet: k.dg}
		}
		groups[k].Points = append(groups[k].Points, SlopeCell{Cell: cellName(d), Asked: int64(r.Options.Backlog),
			Backlog: int64(r.Stream.RestartBytes), PeakRSS: peak})
	}
	var out []SlopeLine
	for _, l := range groups {
		sort.Slice(l.Points, func(i, j int) bool { return l.Points[i].Backlog < l.Points[j].Backlog })
		if distinctBacklogs(l.Points) < 2 {
			continue
		}
		l.Slope, l.Intercept = fit(l.Points)
		out = append(out, *l)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].ServerVersion != out[j].ServerVersion {
			return out[i].ServerVersion < out[j].ServerVersion
		}
		return out[i].DirectGet
	})
	return out, bound
}

// distinctBacklogs counts the --backlog settings among the points.
func distinctBacklogs(ps []SlopeCell) int {
	seen := map[int64]bool{}
	for _, p := range ps {
		seen[p.Asked] = true
	}
	return len(seen)
}

// fit is the least-squares line through the points.
func fit(ps []SlopeCell) (slope, intercept float64) {
	n := float64(len(ps))
	var sx, sy, sxx, sxy float64
	for _, p := range ps {
		x, y := float64(p.Backlog), float64(p.PeakRSS)
		sx, sy, sxx, sxy = sx+x, sy+y, sxx+x*x, sxy+x*y
	}
	den := n*sxx - sx*sx
	if den == 0 {
		return 0, sy / n
	}
	slope = (n*sxy - sx*sy) / den
	return slope, (sy - slope*sx) / n
}

func cellName(dir string) string {
	dir = strings.TrimRight(dir, "/")
	if i := strings.LastIndex(dir, "/"); i >= 0 {
		return dir[i+1:]
	}
	return dir
}
