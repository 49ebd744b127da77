package reports

import (
	"math"
	"strconv"

	"gonum.org/v1/plot"
)

// Tick labellers in the page's units.

// countTicks are gonum's default ticks, labelled 1,500 rather than 1500;
// for a small range of counts, where gonum would label 0.5 or 2.5, one tick per
// whole step instead.
var countTicks = plot.TickerFunc(func(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	whole := true
	for i := range ts {
		if ts[i].Label != "" {
			whole = whole && ts[i].Value == math.Trunc(ts[i].Value)
			ts[i].Label = FormatCount(ts[i].Value)
		}
	}
	if whole || hi-lo < 1 || hi-lo > 20 {
		return ts
	}
	step := 1.0
	for (hi-lo)/step > 6 {
		step++
	}
	ts = ts[:0]
	for v := math.Ceil(lo/step) * step; v <= hi; v += step {
		ts = append(ts, plot.Tick{Value: v, Label: FormatCount(v)})
	}
	return ts
})

// secondTicks label a time axis in whole seconds at a round step (1, 2, 5,
// 10, 20, 30, 60, ...), four to eight of them: gonum's default would write
// 0.00 and 25.00 for a 27 s cell.
var secondTicks = plot.TickerFunc(func(lo, hi float64) []plot.Tick {
	span := hi - lo
	if span <= 0 || math.IsInf(span, 0) || math.IsNaN(span) {
		return plot.DefaultTicks{}.Ticks(lo, hi)
	}
	step := 1.0
	for _, s := range []float64{1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1200, 1800, 3600} {
		step = s
		if span/s <= 8 {
			break
		}
	}
	if span/step < 1 { // under a second: gonum's decimals
		return plot.DefaultTicks{}.Ticks(lo, hi)
	}
	var ts []plot.Tick
	for v := math.Ceil(lo/step) * step; v <= hi+1e-9; v += step {
		ts = append(ts, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', -1, 64)})
		for m := 1; m < 5 && step >= 5; m++ { // unlabelled minor ticks
			if mv := v + float64(m)*step/5; mv <= hi {
				ts = append(ts, plot.Tick{Value: mv})
			}
		}
	}
	return ts
})

// MsLogTicks are gonum's log ticks for milliseconds: 100 µs, 1.0 ms, 10 ms.
var MsLogTicks = plot.TickerFunc(func(lo, hi float64) []plot.Tick {
	ts := plot.LogTicks{}.Ticks(lo, hi)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = FormatMs(ts[i].Value)
		}
	}
	return ts
})

// ByteTicks are round in the binary unit the range reaches (200 MiB, not
// 209.7 MB).
var ByteTicks = plot.TickerFunc(func(lo, hi float64) []plot.Tick {
	unit := 1.0
	for unit*1024 <= hi/2 && unit < 1<<40 {
		unit *= 1024
	}
	ts := plot.DefaultTicks{}.Ticks(lo/unit, hi/unit)
	name := map[float64]string{1: "B", 1 << 10: "KiB", 1 << 20: "MiB", 1 << 30: "GiB", 1 << 40: "TiB"}[unit]
	for i := range ts {
		if ts[i].Label != "" {
			// In the axis's unit: 1,000 MiB next to 500 MiB, not 0.98 GiB.
			ts[i].Label = FormatCount(ts[i].Value) + " " + name
			if ts[i].Value == 0 {
				ts[i].Label = "0 B"
			}
		}
		ts[i].Value *= unit
	}
	return ts
})
