package reports

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/plot/plotter"

	"github.com/jetstream-chaos/jetstream-chaos/internal/latency"
	"github.com/jetstream-chaos/jetstream-chaos/nemesis"
)

// errKinds names and colours the error kinds of history.ErrKind, in the
// order they stack.
var errKinds = []struct{ kind, name, color string }{
	{"wrong_last_seq", "wrong last sequence (10071)", ColRed},
	{"wrong_last_seq_inflight", "in-flight write (10164)", ColPurple},
	{"timeout", "timeout (indeterminate)", ColOrange},
	{"unavailable", "JetStream unavailable (10008)", ColSky},
	{"no_responders", "no responders", ColBlue},
	{"key_exists", "key exists", ColYellow},
	{"other", "other", ColGrey},
}

func errKindName(kind string) (name, color string) {
	for _, k := range errKinds {
		if k.kind == kind {
			return k.name, k.color
		}
	}
	return kind, ColGrey
}

// faultBands turns fault windows into shaded bands; the details are in
// each cell's table of faults. A trigger that never fired was armed the
// whole time and injected nothing: it is in the table, not shaded. A
// triggered window says each replica's lag when its fault took effect.
func faultBands(ws []nemesis.Window) []Band {
	out := make([]Band, 0, len(ws))
	for _, w := range ws {
		if w.NeverFired() {
			continue
		}
		label := w.Fault
		if len(w.Targets) > 0 {
			label += " " + strings.Join(w.Targets, ",")
		}
		col := ""
		if !w.Injected {
			col, label = "#dddddd", label+" (not injected)"
		}
		b := Band{From: w.Start.Seconds(), To: w.End.Seconds(), Label: label, Color: col, triggered: w.Trigger != ""}
		if w.Event != nil && len(w.Lag) > 0 {
			b.Sub = "lag " + lagWords(w.Lag, ", ")
		}
		out = append(out, b)
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
	return []Mark{{X: workloadSec, Label: "workload ends", Color: "#666666"}}
}

func bucketWord(s *Series) string { return FormatMs(float64(s.Width) / 1e6) }

// throughputChart draws acknowledged reads and writes per second.
func throughputChart(s *Series, bands []Band, marks []Mark, xmax float64) *Chart {
	c := NewTimeChart("Throughput (acknowledged ops/s, per "+bucketWord(s)+")", "ops/s", xmax, bands)
	c.Kind = KindThroughput
	var reads, writes plotter.XYs
	for i, b := range s.Buckets {
		// The bucket cut by the end of the axis counts over its own part.
		w := math.Min(s.Width.Seconds(), xmax-s.x(i))
		if w <= s.Width.Seconds()/4 {
			break
		}
		x := math.Min(s.mid(i), s.x(i)+w/2)
		reads = append(reads, plotter.XY{X: x, Y: math.Round(float64(b.Reads) / w)})
		writes = append(writes, plotter.XY{X: x, Y: math.Round(float64(b.Writes) / w)})
	}
	c.Line("reads", reads, LineStyle(ColBlue, 1.6, false))
	c.Line("writes", writes, LineStyle(ColGreen, 1.6, true))
	c.Marks(marks)
	return c
}

// latencyChart draws p50 and p99 of acknowledged reads and writes per
// bucket, on a log scale.
func latencyChart(s *Series, bands []Band, marks []Mark, xmax float64) *Chart {
	c := NewTimeChart("Latency of acknowledged ops (per "+bucketWord(s)+", log scale)", "latency (log scale)", xmax, bands)
	c.Kind = KindLatency
	c.YLog = true
	c.Plot.Y.Tick.Marker = MsLogTicks
	series := func(pick func(*Bucket) *latency.Hist, q float64) plotter.XYs {
		out := make(plotter.XYs, len(s.Buckets))
		for i := range s.Buckets {
			out[i] = plotter.XY{X: s.mid(i), Y: quantileMs(pick(&s.Buckets[i]), q)}
		}
		return out
	}
	rd := func(b *Bucket) *latency.Hist { return &b.readLat }
	wr := func(b *Bucket) *latency.Hist { return &b.writeLat }
	c.Line("reads p50", series(rd, 0.5), LineStyle(ColBlue, 1, true))
	c.Line("reads p99", series(rd, 0.99), LineStyle(ColBlue, 1.6, false))
	c.Line("writes p50", series(wr, 0.5), LineStyle(ColGreen, 1, true))
	c.Line("writes p99", series(wr, 0.99), LineStyle(ColGreen, 1.6, false))
	c.Marks(marks)
	return c
}

// quantileMs is h's q-quantile in ms, NaN (no point) when h is empty.
func quantileMs(h *latency.Hist, q float64) float64 {
	if h.Count() == 0 {
		return math.NaN()
	}
	return float64(h.Quantile(q)) / 1e6
}

// errorChart stacks failed and indeterminate ops by error kind.
func errorChart(s *Series, bands []Band, marks []Mark, xmax float64) *Chart {
	c := NewTimeChart("Errors by kind (ops per "+bucketWord(s)+")", "errors per "+bucketWord(s), xmax, bands)
	c.Kind, c.OwnScale = KindErrors, true
	kinds := append([]string(nil), s.Kinds...)
	order := map[string]int{}
	for i, k := range errKinds {
		order[k.kind] = i
	}
	// Known kinds stack in a fixed order so colours and order match across cells.
	sort.SliceStable(kinds, func(i, j int) bool { return kindRank(order, kinds[i]) < kindRank(order, kinds[j]) })
	if len(kinds) == 0 {
		c.Empty = "no failed or indeterminate ops"
		return c
	}
	xs := make([]float64, len(s.Buckets))
	for i := range s.Buckets {
		xs[i] = s.x(i)
	}
	var layers []stack
	for _, k := range kinds {
		name, col := errKindName(k)
		vals := make([]float64, len(s.Buckets))
		total := 0
		for i, b := range s.Buckets {
			vals[i] = float64(b.Errs[k])
			total += b.Errs[k]
		}
		layers = append(layers, stack{name: fmt.Sprintf("%s: %s", name, FormatCount(total)), color: col, values: vals})
	}
	c.stackedBars(xs, s.Width.Seconds(), layers)
	c.Marks(marks)
	return c
}

func kindRank(order map[string]int, k string) int {
	if i, ok := order[k]; ok {
		return i
	}
	return len(order)
}

// FaultBands are a cell's fault windows as shaded bands, for a view's own
// charts over time.
func FaultBands(ws []nemesis.Window) []Band { return faultBands(ws) }
