package catchup

import (
	"bufio"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/observe"
)

// The server's log says what the samples cannot: why a catch-up stalled or
// started over. These are the lines worth counting (nats-server
// jetstream_cluster.go, the catch-up of a stream and its raft group).
var logPatterns = []string{
	"Catchup for stream",             // started, complete, stalled, errored, aborted
	"Resetting stream cluster state", // the replica gave up and starts over
	"Falling behind in health check", // commit != applied: the report's symptom
	"is not current",                 // health check: stream or JetStream not current
	"Healthcheck failed",
}

// LogMatch counts one pattern in one node's log.
type LogMatch struct {
	Node    string `json:"node"`
	Pattern string `json:"pattern"`
	Count   int    `json:"count"`
	First   string `json:"first"`
	Last    string `json:"last,omitempty"`
}

// ScanLogs counts the lines of interest in dir/<node>.log for each node
// (the runtimes save logs as <Config.Dir>/logs/<name>.log; Docker's only at
// Close). Missing logs are skipped.
func ScanLogs(dir string, nodes []string) []LogMatch {
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
			for _, p := range logPatterns {
				if !strings.Contains(line, p) {
					continue
				}
				m := found[p]
				if m == nil {
					m = &LogMatch{Node: n, Pattern: p, First: observe.OneLine(line, 240)}
					found[p] = m
				} else {
					m.Last = observe.OneLine(line, 240)
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
