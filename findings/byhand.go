package findings

import (
	"fmt"
	"strings"
)

// faultHow says how to inject each fault by hand (nemesis/*.go do it),
// faultUndo how to undo it.
var faultHow = map[string]string{
	"partition-one":    "cut one node off from its two peers (drop the route traffic between them, e.g. with nftables in its network namespace; clients still reach it)",
	"partition-leader": "cut the stream leader off from its two peers (drop the route traffic between them, e.g. with nftables in its network namespace; clients still reach it)",
	"partition-halves": "split the cluster into a majority and a minority (drop the route traffic between the sides)",
	"kill":             "SIGKILL a node's nats-server",
	"restart":          "stop a node's nats-server gracefully",
	"pause":            "freeze a node's nats-server (docker pause, or SIGSTOP)",
	"wipe":             "SIGKILL a node's nats-server and delete its store",
	"catchup":          "SIGKILL a node's nats-server and delete its store",
	"stepdown":         "ask the stream leader to step down (`$JS.API.STREAM.LEADER.STEPDOWN.<stream>`)",
}

var faultUndo = map[string]string{
	"partition-one": "restore the routes", "partition-leader": "restore the routes", "partition-halves": "restore the routes",
	"kill": "start the node again on its store", "restart": "start the node again on its store",
	"pause": "resume the node", "wipe": "start the node again, empty", "catchup": "start the node again, empty",
}

// byHand says how to reproduce the section's anomaly without the toolkit:
// the cluster, the workload, and the faults near it in words.
func (c *cell) byHand(s section) string {
	var b strings.Builder
	b.WriteString("start 3 nats-server nodes with the configuration above")
	if w := c.workloadSteps(); w != "" {
		b.WriteString("; " + w)
	}
	var faults, undo []string
	seen := map[string]bool{}
	for _, w := range c.res.Faults {
		near := s.allFaults || !(int64(w.End)+int64(faultMargin) < s.opSpan[0] || int64(w.Start)-int64(faultMargin) > s.opSpan[1])
		if !near || seen[w.Fault] {
			continue
		}
		seen[w.Fault] = true
		var steps []string
		for _, f := range strings.Split(w.Fault, "+") {
			if h, ok := faultHow[f]; ok {
				steps = append(steps, h)
			} else {
				steps = append(steps, f)
			}
			if u := faultUndo[f]; u != "" && !seen["undo "+u] {
				seen["undo "+u] = true
				undo = append(undo, u)
			}
		}
		f := strings.Join(steps, " and ")
		if len(steps) > 1 {
			f += ", together"
		}
		faults = append(faults, f)
	}
	if len(faults) > 0 {
		fmt.Fprintf(&b, "; while they run, inject in turn, each for a few seconds with a few seconds between (the fault windows above have the exact times and targets): %s", strings.Join(faults, "; "))
		if len(undo) > 0 {
			fmt.Fprintf(&b, "; at the end of each, %s", strings.Join(undo, ", "))
		}
	}
	then := "; after the last, wait"
	if len(faults) == 0 {
		then = "; then wait"
	}
	b.WriteString(then + " until every replica is current, then read the stream from its first message and compare it with what the clients were told.")
	return b.String()
}
