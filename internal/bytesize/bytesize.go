// Package bytesize reads and prints sizes as operators write them: 4096,
// 4KiB, 40MB, 1.5GiB, 6GB. A flag of a size holds a Bytes directly.
package bytesize

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Bytes is a size given on the command line as 4096, 4KiB, 40MB, 1.5GiB or
// 6GB: decimal units (kB, MB, GB, TB) are powers of 1000, binary ones (KiB,
// MiB, GiB, TiB) powers of 1024, as operators write them in Kubernetes
// limits and as nats-server's own configs do. It implements pflag.Value, so
// a flag can hold it directly.
type Bytes int64

var units = []struct {
	suffix string
	mult   float64
}{
	// Longest suffixes first, so "KiB" is not read as "B".
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"tib", 1 << 40},
	{"ki", 1 << 10}, {"mi", 1 << 20}, {"gi", 1 << 30}, {"ti", 1 << 40},
	{"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9}, {"tb", 1e12},
	{"k", 1e3}, {"m", 1e6}, {"g", 1e9}, {"t", 1e12},
	{"b", 1},
}

// Parse reads a size; see Bytes.
func Parse(s string) (Bytes, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	t = strings.TrimSuffix(t, "/s") // a rate may be written 40MB/s
	mult := 1.0
	for _, u := range units {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) || v*mult > math.MaxInt64/2 {
		return 0, fmt.Errorf("%q is not a size such as 4096, 4KiB, 40MB or 1.5GiB", s)
	}
	return Bytes(math.Round(v * mult)), nil
}

// String prints the size as it was most likely written: exactly, in the
// largest unit it reaches, with at most two decimals, binary (4KiB, 1.5GiB)
// or decimal (6GB, 40MB) whichever is shorter; any other size (a
// measurement) in the largest binary unit to two decimals (68.79MiB).
func (b Bytes) String() string {
	type unit struct {
		name string
		mult int64
	}
	// Exact in the largest unit it reaches, or not at all: 70444KiB is
	// exact but unreadable, and 68.79MiB is what a measurement wants.
	exact := func(units []unit) string {
		for _, u := range units {
			if abs(int64(b)) >= u.mult {
				if (int64(b)*100)%u.mult == 0 {
					return short(float64(b)/float64(u.mult)) + u.name
				}
				return ""
			}
		}
		return ""
	}
	bin := []unit{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}}
	dec := []unit{{"TB", 1e12}, {"GB", 1e9}, {"MB", 1e6}, {"kB", 1e3}}
	bs, ds := exact(bin), exact(dec)
	switch {
	case bs != "" && (ds == "" || len(bs) <= len(ds)):
		return bs
	case ds != "":
		return ds
	}
	for _, u := range bin {
		if abs(int64(b)) >= u.mult {
			return short(float64(b)/float64(u.mult)) + u.name
		}
	}
	return strconv.FormatInt(int64(b), 10) + "B"
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// short formats f with at most two decimals and no trailing zeros.
func short(f float64) string {
	s := strconv.FormatFloat(f, 'f', 2, 64)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// Set implements pflag.Value.
func (b *Bytes) Set(s string) error {
	v, err := Parse(s)
	if err != nil {
		return err
	}
	*b = v
	return nil
}

// Type implements pflag.Value.
func (b *Bytes) Type() string { return "size" }

// List is a comma list of sizes, as a flag takes it.
type List []Bytes

func (l *List) String() string {
	parts := make([]string, len(*l))
	for i, b := range *l {
		parts[i] = b.String()
	}
	return strings.Join(parts, ",")
}

// Set implements pflag.Value: the list given replaces the default.
func (l *List) Set(s string) error {
	*l = (*l)[:0]
	for _, part := range strings.Split(s, ",") {
		b, err := Parse(part)
		if err != nil {
			return err
		}
		*l = append(*l, b)
	}
	return nil
}

// Type implements pflag.Value.
func (l *List) Type() string { return "sizes" }
