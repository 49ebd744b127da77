package catchup

import (
	"fmt"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/internal/bytesize"
)

// swing is a censored point whose true demand could carry its line's
// slope across the bound: alone, a demand above cross would.
type swing struct {
	cell  SlopeCell
	cross float64 // bytes
}

// judgeLine is a line's verdict and the words that say it. The least-
// squares slope is sum((x-mean)*y)/sum((x-mean)^2): a censored point's
// demand, known only to be at least its Demand, raises the slope with its
// true value when its backlog is above the line's mean backlog, lowers it
// when below, and does nothing at the mean. So a slope above the bound
// with every censored demand at its least is proof only when no censored
// point lies below the mean, and one within the bound only when none lies
// above it; otherwise the demands decide, and the line is unknown.
func judgeLine(l SlopeLine, bound float64) (checker.Verdict, string) {
	if !l.Fitted {
		w := fmt.Sprintf("no slope: its points hold %d of its %d --backlog settings", distinctBacklogs(l.Points), l.Backlogs)
		return checker.Unknown, w + leftOutClause(l)
	}
	over := fmt.Sprintf("%d backlogs", distinctBacklogs(l.Points))
	if n := len(l.Points); n > distinctBacklogs(l.Points) {
		over += fmt.Sprintf(" (%d cells)", n)
	}
	words := fmt.Sprintf("%.2f bytes of RSS per byte over %s", l.Slope, over)
	if c := censoredClause(l.Points); c != "" {
		words += ", " + c
	}
	steep := l.Slope > bound
	swings := swings(l, bound, steep)
	v := checker.Valid
	switch {
	case len(swings) > 0 && steep:
		v, words = checker.Unknown, words+", undecided: it grows with the backlog at these demands, but is flat if "+swingWords(swings)
	case len(swings) > 0:
		v, words = checker.Unknown, words+", undecided: flat at these demands, but it grows with the backlog if "+swingWords(swings)
	case steep:
		v, words = checker.Invalid, words+", grows with the backlog"
	default:
		words += ", flat"
	}
	return v, words + leftOutClause(l)
}

// swings are the censored points whose higher demand moves the slope
// across the bound: down for a steep line (below the mean backlog), up for
// a flat one (above it).
func swings(l SlopeLine, bound float64, steep bool) []swing {
	var mean, sxx float64
	for _, p := range l.Points {
		mean += float64(p.Backlog) / float64(len(l.Points))
	}
	for _, p := range l.Points {
		d := float64(p.Backlog) - mean
		sxx += d * d
	}
	var out []swing
	for _, p := range l.Points {
		d := float64(p.Backlog) - mean
		if p.Censored == "" || d == 0 || (steep && d > 0) || (!steep && d < 0) {
			continue
		}
		out = append(out, swing{p, float64(p.Demand) + (bound-l.Slope)*sxx/d})
	}
	return out
}

// censoredClause names the points fitted at the least their demand was:
// "the demands of a (which was OOM-killed once) and b (...) at their
// least, 1GiB and 1GiB".
func censoredClause(ps []SlopeCell) string {
	var who, least []string
	for _, p := range ps {
		if p.Censored != "" {
			who = append(who, fmt.Sprintf("%s (which %s)", p.Cell, p.Censored))
			least = append(least, bytesize.Bytes(p.Demand).String())
		}
	}
	switch len(who) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("the demand of %s at its least, %s", who[0], least[0])
	}
	return fmt.Sprintf("the demands of %s at their least, %s", strings.Join(who, ", "), strings.Join(least, ", "))
}

// swingWords: "a's demand was above 2.1GiB or b's above 3GiB".
func swingWords(ss []swing) string {
	var s []string
	for i, w := range ss {
		verb := "'s above "
		if i == 0 {
			verb = "'s demand was above "
		}
		s = append(s, w.cell.Cell+verb+bytesize.Bytes(int64(w.cross)).String())
	}
	return strings.Join(s, " or ")
}

// leftOutClause names a line's cells that gave no point.
func leftOutClause(l SlopeLine) string {
	if len(l.LeftOut) == 0 {
		return ""
	}
	return " (left out: " + leftOutWords(l.LeftOut) + ")"
}
