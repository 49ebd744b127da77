package reports

import (
	"fmt"
	"math"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/nemesis"
)

// errKinds names and colours the error kinds of history.ErrKind, in the
// order they stack.
var errKinds = []struct{ kind, name, color string }{
	{"wrong_last_seq", "wrong last sequence (10071)", colRed},
	{"wrong_last_seq_inflight", "in-flight write (10164)", colPurple},
	{"timeout", "timeout (indeterminate)", colOrange},
	{"unavailable", "JetStream unavailable (10008)", colSky},
	{"no_responders", "no responders", colBlue},
	{"key_exists", "key exists", colYellow},
	{"other", "other", colGrey},
}

func errKindName(kind string) (name, color string) {
	for _, k := range errKinds {
		if k.kind == kind {
			return k.name, k.color
		}
	}
	return kind, colGrey
}

// faultBands turns fault windows into shaded bands.
func faultBands(ws []nemesis.Window) []Band {
	out := make([]Band, 0, len(ws))
	for _, w := range ws {
		label := w.Fault
		if len(w.Targets) > 0 {
			label += " " + strings.Join(w.Targets, ",")
		}
		state := "verified"
		col := ""
		switch {
		case !w.Injected:
			state, col = "not injected", "#dddddd"
		case !w.Verified:
			state = "not verified"
		}
		title := fmt.Sprintf("%s: %.1fs to %.1fs, %s", label, w.Start.Seconds(), w.End.Seconds(), state)
		if w.Detail != "" {
			title += ": " + w.Detail
		}
		out = append(out, Band{From: w.Start.Seconds(), To: w.End.Seconds(), Label: label, Title: title, Color: col})
	}
	return out
}

// timeAxis is the x range every chart of a cell shares: the workload and
// the fault windows. The final reads, after the heal and the wait for
// recovery, are left out: they would squeeze the workload into a corner.
// Without a recorded workload phase, the whole history is shown.
func timeAxis(s *Series, ws []nemesis.Window, workloadSec float64) float64 {
	x := workloadSec
	if s != nil && x <= 0 {
		x = float64(s.End) / 1e9
	}
	for _, w := range ws {
		x = math.Max(x, w.End.Seconds())
	}
	if x <= 0 {
		x = 1
	}
	return x
}

func workloadMark(workloadSec float64) []Mark {
	if workloadSec <= 0 {
		return nil
	}
	return []Mark{{X: workloadSec, Label: "workload ends", Title: "the workload stopped here; later ops are the final reads after the heal", Color: "#666"}}
}

func bucketWord(s *Series) string { return fmtMs(float64(s.Width) / 1e6) }

// throughputChart draws acknowledged reads and writes per second.
func throughputChart(s *Series, bands []Band, marks []Mark, xmax float64) *TimeChart {
	c := &TimeChart{Title: "Throughput (acknowledged ops/s, per " + bucketWord(s) + ")", YLabel: "ops/s", YFmt: fmtCount[float64],
		XMax: xmax, Bands: bands, Marks: marks}
	var reads, writes []Point
	for i, b := range s.Buckets {
		// The bucket cut by the end of the axis counts over its own part.
		w := math.Min(s.Width.Seconds(), xmax-s.x(i))
		if w <= s.Width.Seconds()/4 {
			break
		}
		x := math.Min(s.mid(i), s.x(i)+w/2)
		reads = append(reads, Point{x, math.Round(float64(b.Reads) / w)})
		writes = append(writes, Point{x, math.Round(float64(b.Writes) / w)})
	}
	c.Lines = []Line{{Name: "reads", Color: colBlue, Points: reads}, {Name: "writes", Color: colGreen, Dashed: true, Points: writes}}
	return c
}

// latencyChart draws p50 and p99 of acknowledged reads and writes per
// bucket, on a log scale.
func latencyChart(s *Series, bands []Band, marks []Mark, xmax float64) *TimeChart {
	c := &TimeChart{Title: "Latency of acknowledged ops (per " + bucketWord(s) + ", log scale)", YLabel: "latency", YLog: true,
		YFmt: fmtMs, XMax: xmax, Bands: bands, Marks: marks}
	series := func(pick func(*Bucket) *latHist, q float64) []Point {
		out := make([]Point, len(s.Buckets))
		for i := range s.Buckets {
			out[i] = Point{s.mid(i), pick(&s.Buckets[i]).quantile(q)}
		}
		return out
	}
	rd := func(b *Bucket) *latHist { return &b.readLat }
	wr := func(b *Bucket) *latHist { return &b.writeLat }
	c.Lines = []Line{
		{Name: "reads p50", Color: colBlue, Width: 1, Dashed: true, Points: series(rd, 0.5)},
		{Name: "reads p99", Color: colBlue, Points: series(rd, 0.99)},
		{Name: "writes p50", Color: colGreen, Width: 1, Dashed: true, Points: series(wr, 0.5)},
		{Name: "writes p99", Color: colGreen, Points: series(wr, 0.99)},
	}
	return c
}

// errorChart stacks failed and indeterminate ops by error kind.
func errorChart(s *Series, bands []Band, marks []Mark, xmax float64) *TimeChart {
	c := &TimeChart{Title: "Errors by kind (ops per " + bucketWord(s) + ")", YLabel: "errors per " + bucketWord(s), YFmt: fmtCount[float64],
		XMax: xmax, Bands: bands, Marks: marks, BarW: s.Width.Seconds()}
	for i := range s.Buckets {
		c.BarX = append(c.BarX, s.x(i))
	}
	kinds := append([]string(nil), s.Kinds...)
	order := map[string]int{}
	for i, k := range errKinds {
		order[k.kind] = i
	}
	// Known kinds stack in a fixed order so colours and order match across cells.
	for i := 1; i < len(kinds); i++ {
		for j := i; j > 0 && kindRank(order, kinds[j]) < kindRank(order, kinds[j-1]); j-- {
			kinds[j], kinds[j-1] = kinds[j-1], kinds[j]
		}
	}
	for _, k := range kinds {
		name, col := errKindName(k)
		vals := make([]float64, len(s.Buckets))
		total := 0
		for i, b := range s.Buckets {
			vals[i] = float64(b.Errs[k])
			total += b.Errs[k]
		}
		c.Stacks = append(c.Stacks, Stack{Name: fmt.Sprintf("%s: %s", name, fmtCount(total)), Color: col, Values: vals})
	}
	if len(kinds) == 0 {
		c.Empty = "no failed or indeterminate ops"
	}
	return c
}

func kindRank(order map[string]int, k string) int {
	if i, ok := order[k]; ok {
		return i
	}
	return len(order)
}

// stalenessChart compares the staleness distributions of the cells. Empty
// buckets past the last non-empty one are dropped.
func stalenessChart(labels []string, sums []Summary) *BarChart {
	c := &BarChart{Title: "How stale were the stale reads? (time since the newer revision was acknowledged)",
		XLabel: "staleness", YLabel: "stale reads", W: 1100, H: 300}
	last := -1
	var cats []string
	for _, s := range sums {
		for i, b := range s.StaleHist {
			if b.Count > 0 {
				last = max(last, i)
			}
			if len(cats) <= i {
				cats = append(cats, b.Label)
			}
		}
	}
	if last < 0 {
		c.Empty = "no stale reads in any cell"
		return c
	}
	c.Categories = cats[:min(len(cats), max(last+2, 6))]
	for i, s := range sums {
		if !s.HasStale {
			continue
		}
		vals := make([]float64, len(c.Categories))
		for j := range vals {
			if j < len(s.StaleHist) {
				vals[j] = float64(s.StaleHist[j].Count)
			}
		}
		c.Series = append(c.Series, Stack{Name: fmt.Sprintf("%s (%s)", labels[i], fmtCount(s.Stale)),
			Color: seriesColors[i%len(seriesColors)], Values: vals})
	}
	return c
}
