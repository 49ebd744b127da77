package reports

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/jetstream-chaos/jetstream-chaos/internal/bytesize"
)

// FormatCount writes a count with thousands separators: 2,807.
func FormatCount[T int | int64 | float64](v T) string {
	f := float64(v)
	if f != math.Trunc(f) || math.Abs(f) >= 1e15 {
		return strconv.FormatFloat(f, 'g', 4, 64)
	}
	n := int64(f)
	s := strconv.FormatInt(max(n, -n), 10)
	var b strings.Builder
	if n < 0 {
		b.WriteByte('-')
	}
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// FormatPercent writes n of total as a percentage with enough digits to not read
// as zero: 5.6 %, 0.02 %.
func FormatPercent(n, total int) string {
	if total == 0 {
		return "0 %"
	}
	p := 100 * float64(n) / float64(total)
	switch {
	case p == 0:
		return "0 %"
	case p >= 10:
		return fmt.Sprintf("%.0f %%", p)
	case p >= 0.1:
		return fmt.Sprintf("%.1f %%", p)
	}
	return fmt.Sprintf("%.2g %%", p)
}

// FormatMs writes milliseconds with a sensible precision.
func FormatMs(ms float64) string {
	switch {
	case ms >= 1000:
		return fmt.Sprintf("%.2f s", ms/1000)
	case ms >= 10:
		return fmt.Sprintf("%.0f ms", ms)
	case ms >= 0.1:
		return fmt.Sprintf("%.1f ms", ms)
	case ms == 0:
		return "0 ms"
	}
	return fmt.Sprintf("%.0f µs", ms*1000)
}

// FormatSeconds writes a duration in seconds: 12.3 s.
func FormatSeconds(d time.Duration) string {
	s := d.Seconds()
	if s >= 100 {
		return fmt.Sprintf("%.0f s", s)
	}
	return fmt.Sprintf("%.1f s", s)
}

// FormatBytes writes a byte count in binary units.
func FormatBytes(b float64) string {
	const unit = 1024
	if b < unit {
		return fmt.Sprintf("%.0f B", b)
	}
	exp, v := 0, b/unit
	// From 999.5 on, three digits would round to 1e+03: the next unit
	// says it as 0.98 GiB.
	for v >= 999.5 && exp < 4 {
		v /= unit
		exp++
	}
	if v < 1 {
		return fmt.Sprintf("%.2f %ciB", v, "KMGTP"[exp])
	}
	return fmt.Sprintf("%.3g %ciB", v, "KMGTP"[exp])
}

// Plural writes "1 update" or "2 updates".
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return FormatCount(n) + " " + many
}

// Times writes "once", "2 times".
func Times(n int) string {
	if n == 1 {
		return "once"
	}
	return FormatCount(n) + " times"
}

// FormatSecs writes a duration in seconds: 4.9 s, 42.3 s, 2 m 5 s.
func FormatSecs(s float64) string {
	if s < 99.95 {
		return fmt.Sprintf("%.1f s", s)
	}
	return FormatDuration(time.Duration(math.Round(s)) * time.Second)
}

// FormatAt writes a moment, ms since the cell began, as seconds on the
// charts' axis: 12.2 s, 245.0 s.
func FormatAt(ms int64) string {
	return fmt.Sprintf("%.1f s", float64(ms)/1000)
}

// FormatDuration writes a bound as people say it: 10 m, 90 s, 2 m 30 s.
func FormatDuration(d time.Duration) string {
	switch {
	case d <= 0:
		return "0 s"
	case d < 100*time.Second && d%time.Minute != 0:
		return fmt.Sprintf("%g s", d.Seconds())
	case d%time.Hour == 0:
		return fmt.Sprintf("%d h", d/time.Hour)
	case d%time.Minute == 0:
		return fmt.Sprintf("%d m", d/time.Minute)
	}
	d = d.Round(time.Second)
	return fmt.Sprintf("%d m %d s", d/time.Minute, (d%time.Minute)/time.Second)
}

// FormatSize writes a size that was asked for (a flag) as it was most likely
// written, with a space: 1.5 GiB, 6 GB, 40 MB.
func FormatSize(b int64) string {
	s := bytesize.Bytes(b).String()
	if i := strings.IndexFunc(s, unicode.IsLetter); i > 0 {
		return s[:i] + " " + s[i:]
	}
	return s
}

// FormatRatio writes a ratio to the stream: 0.94x.
func FormatRatio(r float64) string {
	if r >= 10 {
		return fmt.Sprintf("%.0fx", r)
	}
	return fmt.Sprintf("%.2fx", r)
}

// FormatAtList writes times in ms as "12.3 s, 15.0 s", at most six of them.
func FormatAtList(ms []int64) string {
	var parts []string
	for i, t := range ms {
		if i == 6 {
			parts = append(parts, fmt.Sprintf("… (%d more)", len(ms)-i))
			break
		}
		parts = append(parts, FormatAt(t))
	}
	if len(parts) == 0 {
		return "?"
	}
	return strings.Join(parts, ", ")
}
