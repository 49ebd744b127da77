package observe

import (
	"fmt"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/internal/bytesize"
)

// TextChart draws a node's memory for a terminal: one column per time
// slice with the slice's peak RSS as '#', cgroup usage above it as ':',
// the hard limit as '=', and the marks (a rune at a time in ms) on a line
// below. The y axis is labelled on the left. It is "" when there is
// nothing to draw.
func TextChart(m NodeMemory, marks map[int64]rune, width, height int, indent string) string {
	var end int64
	for _, s := range []Series{m.RSS, m.Usage} {
		if n := len(s.T); n > 0 {
			end = max(end, s.T[n-1])
		}
	}
	for t := range marks {
		end = max(end, t)
	}
	if end <= 0 || width < 10 || height < 2 {
		return ""
	}
	col := func(t int64) int { return min(int(t*int64(width)/(end+1)), width-1) }
	rss, usage, limit := bin(m.RSS, width, end, col), bin(m.Usage, width, end, col), make([]int64, width)
	// The scale follows RSS and the limit. Cgroup usage counts page cache,
	// which on an unlimited node grows with the stream: it would flatten
	// everything else, so it is clipped at the top ('^' marks a clip).
	var top, topUsage int64
	for c := range width {
		limit[c] = m.Limit.At(int64(c+1) * (end + 1) / int64(width))
		top = max(top, rss[c], limit[c])
		topUsage = max(topUsage, usage[c])
	}
	if top == 0 {
		top = topUsage
	}
	if top == 0 {
		return ""
	}
	top = top + top/5
	rowOf := func(v int64) int { // 0 is the top row
		if v <= 0 {
			return height
		}
		return height - 1 - min(int(float64(v)*float64(height)/float64(top)), height-1)
	}
	grid := make([][]rune, height)
	for y := range grid {
		grid[y] = []rune(strings.Repeat(" ", width))
	}
	for c := range width {
		ry, uy := rowOf(rss[c]), rowOf(usage[c])
		for y := max(uy, 0); y < height; y++ {
			grid[y][c] = ':'
		}
		if usage[c] > top {
			grid[0][c] = '^'
		}
		for y := ry; y < height; y++ {
			grid[y][c] = '#'
		}
		if limit[c] > 0 {
			grid[rowOf(limit[c])][c] = '='
		}
	}
	var b strings.Builder
	for y, row := range grid {
		label := ""
		if y == 0 || y == height-1 || y == height/2 {
			label = bytesize.Bytes(top * int64(height-y) / int64(height)).String()
		}
		fmt.Fprintf(&b, "%s%9s |%s\n", indent, label, string(row))
	}
	under := []rune(strings.Repeat(" ", width))
	for t, r := range marks {
		under[col(t)] = r
	}
	fmt.Fprintf(&b, "%s%9s +%s\n", indent, "", strings.Repeat("-", width))
	fmt.Fprintf(&b, "%s%9s  %s\n", indent, "", string(under))
	fmt.Fprintf(&b, "%s%9s  0s%s%s\n", indent, "", strings.Repeat(" ", max(0, width-2-len(Secs(end)))), Secs(end))
	return b.String()
}

// bin puts a series into width columns, each the peak of its samples. A
// column with no sample (columns can be narrower than the sampling period)
// carries the last value on if that sample is under a second old; a longer
// gap is a node that was down, and stays empty.
func bin(s Series, width int, end int64, col func(int64) int) []int64 {
	out := make([]int64, width)
	seen := make([]bool, width)
	last := make([]int64, width) // time of the column's last sample
	for i, t := range s.T {
		c := col(t)
		out[c] = max(out[c], s.V[i])
		seen[c], last[c] = true, t
	}
	for c := 1; c < width; c++ {
		colStart := int64(c) * (end + 1) / int64(width)
		if !seen[c] && seen[c-1] && colStart-last[c-1] < 1000 {
			out[c], seen[c], last[c] = out[c-1], true, last[c-1]
		}
	}
	return out
}
