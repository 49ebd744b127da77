package observe

import (
	"strings"
	"testing"
)

// A memory chart for the terminal: RSS, usage above it, the limit and the
// marks, with the y axis labelled; nothing for no samples.
func TestTextChart(t *testing.T) {
	m := NodeMemory{Node: "n3"}
	for i := int64(0); i < 40; i++ {
		m.RSS.Add(i*250, 100<<20+i*(10<<20))
		m.Usage.Add(i*250, 200<<20+i*(10<<20))
	}
	m.Limit.Add(2000, 512<<20)
	out := TextChart(m, map[int64]rune{1000: 'K', 3000: 'R', 9000: 'X'}, 40, 8, "")
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != 8+3 {
		t.Fatalf("%d lines:\n%s", len(lines), out)
	}
	for _, want := range []string{"#", ":", "=", "K", "R", "X", "MiB", "9.8s"} {
		if !strings.Contains(out, want) {
			t.Errorf("chart lacks %q:\n%s", want, out)
		}
	}
	if TextChart(NodeMemory{}, nil, 40, 8, "") != "" {
		t.Error("chart of nothing")
	}
}
