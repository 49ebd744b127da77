package observe

import (
	"bufio"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// LogMatch counts one pattern in one node's log.
type LogMatch struct {
	Node    string `json:"node"`
	Pattern string `json:"pattern"`
	Count   int    `json:"count"`
	First   string `json:"first"`
	Last    string `json:"last,omitempty"`
}

// CountLogLines counts the lines holding each of patterns in
// dir/<node>.log for each node (the runtimes save logs as
// <Config.Dir>/logs/<name>.log; Docker's only at Close), keeping each
// pattern's first and last line. Missing logs are skipped.
func CountLogLines(dir string, nodes, patterns []string) []LogMatch {
	var out []LogMatch
	for _, n := range nodes {
		f, err := os.Open(filepath.Join(dir, n+".log"))
		if err != nil {
			continue
		}
		found := map[string]*LogMatch{}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			for _, p := range patterns {
				if !strings.Contains(line, p) {
					continue
				}
				m := found[p]
				if m == nil {
					m = &LogMatch{Node: n, Pattern: p, First: OneLine(line, 240)}
					found[p] = m
				} else {
					m.Last = OneLine(line, 240)
				}
				m.Count++
			}
		}
		f.Close()
		for _, m := range found {
			out = append(out, *m)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Node != out[j].Node {
			return out[i].Node < out[j].Node
		}
		return out[i].Pattern < out[j].Pattern
	})
	return out
}
