package catchup

import (
	"fmt"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/record"
)

// CheckSlope names the cross-cell check of memory against backlog, and its counts.
const (
	CheckSlope          = "memory-vs-backlog"
	CountSlopeLines     = "lines"     // versions (and Direct Get settings) of two --backlog settings or more
	CountSlopeSteep     = "steep"     // of them, growing with the backlog
	CountSlopeUndecided = "undecided" // of them, unknown: too few points, or censored demands decide
	CountSlopeLeftOut   = "left_out"  // cells that gave no point
	CountSlopeCensored  = "censored"  // points whose peak the target's limit held down
)

// DefaultMaxSlope bounds how fast the catching-up replica's peak RSS may
// grow with the backlog it catches up, in bytes of RSS per byte of stream:
// a replica whose memory is bounded stays flat however large the stream
// is. Measured here (no limit, GOMEMLIMIT unset, 512 MiB-4 GiB): v2.15.3
// 0.55, v2.10.7 0.25, v2.11.8 0.10.
const DefaultMaxSlope = 0.15

// SlopeLine is one line of the memory-against-backlog chart: the cells of
// one server version (and Direct Get setting) and the fitted slope.
type SlopeLine struct {
	ServerVersion string        `json:"server_version"`
	DirectGet     bool          `json:"direct_get"`
	Points        []SlopeCell   `json:"points"`
	LeftOut       []LeftOutCell `json:"left_out,omitempty"` // its cells that gave no point
	Backlogs      int           `json:"backlogs"`           // --backlog settings among its cells, left out or not
	Fitted        bool          `json:"fitted"`             // its points hold two --backlog settings
	Slope         float64       `json:"slope"`              // bytes of demand per byte of backlog (least squares)
	Intercept     float64       `json:"intercept"`          // bytes
}

// SlopeCell is one cell of a line.
type SlopeCell struct {
	Cell    string `json:"cell"`
	Asked   int64  `json:"asked"`    // the --backlog setting of the cell
	Backlog int64  `json:"backlog"`  // bytes the target caught up (the stream at its restart)
	PeakRSS int64  `json:"peak_rss"` // the target's sampled peak from the restart to the heal (0: none)
	// Demand is what the line fits: the peak, or, when Censored, the least
	// the demand was (the larger of the peak and the limit).
	Demand int64 `json:"demand"`
	// Censored says how the target's limit held its peak down ("was
	// OOM-killed once"); "" when it did not.
	Censored string `json:"censored,omitempty"`
}

// CheckRun fits, per server version and Direct Get setting, the target's
// demand against the backlog it caught up (SlopeLines); a slope above the
// bound is the anomaly. A line that censored demands could move across the
// bound, or left with fewer than two --backlog settings, is unknown (see
// judgeLine), and so is a run whose left-out cells may hold the backlogs
// it lacks. A run of one --backlog gives no result, as one cell gives none
// (run.CheckRun).
func (workload) CheckRun(cellDirs []string) ([]checker.Result, error) {
	fit := SlopeLines(cellDirs)
	if len(fit.Lines) == 0 && len(fit.LeftOut) == 0 {
		return nil, nil
	}
	counts := map[string]int{CountSlopeLines: len(fit.Lines), CountSlopeSteep: 0, CountSlopeUndecided: 0,
		CountSlopeLeftOut: len(fit.LeftOut), CountSlopeCensored: 0}
	var parts []string
	for _, l := range fit.Lines {
		v, words := judgeLine(l, fit.Bound)
		switch v {
		case checker.Invalid:
			counts[CountSlopeSteep]++
		case checker.Unknown:
			counts[CountSlopeUndecided]++
		}
		counts[CountSlopeLeftOut] += len(l.LeftOut)
		for _, p := range l.Points {
			if p.Censored != "" {
				counts[CountSlopeCensored]++
			}
		}
		parts = append(parts, fmt.Sprintf("%s (Direct Get %s): %s", l.ServerVersion, record.OnOff(l.DirectGet), words))
	}
	if len(fit.LeftOut) > 0 {
		if len(fit.Lines) == 0 { // the cells read hold one --backlog a line, those left out may hold others
			counts[CountSlopeUndecided]++
			parts = append(parts, "no line of two --backlog settings is left to fit")
		}
		parts = append(parts, "left out, their release and backlog unknown: "+leftOutWords(fit.LeftOut))
	}
	verdict := checker.Valid // a line that grows with the backlog is proof, whatever another could not decide
	switch {
	case counts[CountSlopeSteep] > 0:
		verdict = checker.Invalid
	case counts[CountSlopeUndecided] > 0:
		verdict = checker.Unknown
	}
	summary := fmt.Sprintf("peak RSS of the catching-up node against the backlog (bound %.2f): %s", fit.Bound, strings.Join(parts, "; "))
	return []checker.Result{result(CheckSlope, verdict, summary, counts)}, nil
}
