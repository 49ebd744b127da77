package observe

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// CheckName is the check of the nodes' health, run by the pipeline on
// every cell it observed.
const CheckName = "node-health"

// node-health's counts.
const (
	CountOOMKills     = "oom_kills"     // OOM kills of any node
	CountRestarts     = "restarts"      // restarts by the runtime that no fault explains
	CountDeaths       = "deaths"        // nodes seen down that no fault explains
	CountExplained    = "explained"     // restarts and deaths a fault aimed at the node explains
	CountStateSamples = "state_samples" // state readings that answered
)

// Anomaly kinds of node-health.
const (
	AnomalyOOMKill = "oom_kill"
	AnomalyRestart = "restart"
	AnomalyDied    = "died"
)

// Window is a fault that was injected, on the history's clock (ns), and
// the nodes it aimed at.
type Window struct {
	Fault      string
	Targets    []string
	Start, End int64
}

// FaultWindows reads the injected faults of a cell's history.jsonl, partly
// injected ones included (a fault that was refused or never fired touched
// no node). Cells stored before a partly injected fault was recorded as
// such mark it failed; its heal ran, so its detail has one ("inject: ...;
// heal: ..."), where a fault that touched nothing says "not injected" or
// "refused".
func FaultWindows(historyPath string) ([]Window, error) {
	ops, err := history.ReadOpsWhere(historyPath, func(o *history.Op) bool {
		return o.Type == history.Fault && (o.Outcome != history.Fail || strings.HasPrefix(o.Detail, "inject: "))
	})
	if err != nil {
		return nil, err
	}
	out := make([]Window, 0, len(ops))
	for _, o := range ops {
		out = append(out, Window{Fault: o.Fault, Targets: o.Targets, Start: o.Invoke, End: o.Complete})
	}
	return out, nil
}

// Check judges a stored cell's nodes from its nodes.jsonl: an OOM kill of
// any node is invalid, and so is a restart by the runtime or a node seen
// down that no fault explains. A fault explains one when it aimed at the
// node (its targets name it) and its window overlaps the span in which
// the change happened: from when the reading before the one that saw it
// was asked for to that reading. The restart and the exit that follow an
// OOM kill are the kill's, not more deaths. The fault windows are read
// from history.jsonl, and only when a restart or a death needs them.
// Check returns nil when the cell has no nodes.jsonl: it was stored before
// the pipeline observed the nodes, and there is nothing to judge.
func Check(cellDir string) (*checker.Result, error) {
	rec, err := Load(cellDir)
	if err != nil || rec == nil {
		return nil, err
	}
	windows := func() ([]Window, error) {
		p := filepath.Join(cellDir, "history.jsonl")
		if _, err := os.Stat(p); errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("no history.jsonl holds the cell's fault windows")
		}
		return FaultWindows(p)
	}
	r := judge(rec, windows)
	return &r, nil
}

// judge is Check on a record read; windows is asked for the fault windows
// when a restart or a death needs explaining.
func judge(rec *Record, windows func() ([]Window, error)) checker.Result {
	states := rec.States()
	oom, rest := splitOOM(DetectEvents(states, nil))
	res := checker.Result{Name: CheckName, Counts: map[string]int{CountOOMKills: len(oom), CountStateSamples: answered(states)}}
	for _, e := range oom {
		res.Anomalies = append(res.Anomalies, checker.Anomaly{Kind: AnomalyOOMKill, Description: describe(e)})
	}
	var explained []string
	var windowsErr error
	if len(rest) > 0 {
		var ws []Window
		ws, windowsErr = windows()
		for _, e := range rest {
			if windowsErr != nil {
				break
			}
			if w, ok := explaining(ws, e); ok {
				explained = append(explained, fmt.Sprintf("%s (%s %s, %s-%s)", describe(e), w.Fault, strings.Join(w.Targets, ","), Secs(nsToMs(w.Start)), Secs(nsToMs(w.End))))
				continue
			}
			kind, count := AnomalyDied, CountDeaths
			if e.Kind == EvRestart {
				kind, count = AnomalyRestart, CountRestarts
			}
			res.Counts[count]++
			res.Anomalies = append(res.Anomalies, checker.Anomaly{Kind: kind, Description: describe(e) + ", no fault aimed at " + e.Node + " then"})
		}
	}
	res.Counts[CountExplained] = len(explained)
	res.Verdict, res.Summary = verdict(rec, states, res, rest, windowsErr)
	if res.Verdict == checker.Unknown {
		res.Reason = res.Summary
	}
	if len(explained) > 0 {
		res.Summary += "; explained by the faults aimed at them: " + firstFew(explained, 4)
	}
	return res
}

// verdict decides node-health from what judge found: any anomaly is
// invalid; a death that could not be held against the faults, a node never
// read, or a file cut short leave it unknown.
func verdict(rec *Record, states []StateSample, res checker.Result, rest []Event, windowsErr error) (checker.Verdict, string) {
	c := res.Counts
	switch unread := unreadNodes(rec, states); {
	case len(res.Anomalies) > 0:
		return checker.Invalid, fmt.Sprintf("%d OOM kill(s), %d restart(s) by the runtime and %d death(s) nobody asked for: %s",
			c[CountOOMKills], c[CountRestarts], c[CountDeaths], firstFew(anomalyWords(res.Anomalies), 4))
	case windowsErr != nil:
		return checker.Unknown, fmt.Sprintf("%s, and the fault windows that could explain it were not read: %v", firstFew(describeAll(rest), 4), windowsErr)
	case len(unread) > 0:
		return checker.Unknown, fmt.Sprintf("no state of %s was read, so its OOM kills and restarts are not known", strings.Join(unread, "; "))
	case !rec.Complete:
		return checker.Unknown, fmt.Sprintf("no OOM kill, restart or death nobody asked for until %s, where %s ends without its stop line (the harness stopped first): what came after is not known",
			Secs(nsToMs(rec.End)), File)
	}
	return checker.Valid, fmt.Sprintf("no OOM kill, restart or death nobody asked for on %s (%d state readings)", strings.Join(rec.Nodes, ", "), c[CountStateSamples])
}

// splitOOM parts the OOM kills from the other events, and leaves out of
// those the death and the restart each OOM kill brings (the kill is one
// death, seen as up to three events: oom-kill, died, restart).
func splitOOM(events []Event) (oom, rest []Event) {
	type owed struct{ died, restart int }
	by := map[string]*owed{}
	for _, e := range events {
		o := by[e.Node]
		if o == nil {
			o = &owed{}
			by[e.Node] = o
		}
		switch {
		case e.Kind == EvOOMKill:
			oom = append(oom, e)
			o.died++
			o.restart++
		case e.Kind == EvDied && o.died > 0:
			o.died--
		case e.Kind == EvRestart && o.restart > 0:
			o.restart--
		default:
			rest = append(rest, e)
		}
	}
	return oom, rest
}

// explaining is the fault that explains e: aimed at its node, its window
// overlapping the span from e.FromMs to e.TMs (a reading's ms is its ns
// cut down, so the span reaches 1 ms further).
func explaining(ws []Window, e Event) (Window, bool) {
	for _, w := range ws {
		start, end := w.Start/1e6, (w.End+999_999)/1e6
		if slices.Contains(w.Targets, e.Node) && start <= e.TMs+1 && e.FromMs <= end {
			return w, true
		}
	}
	return Window{}, false
}

// describe is an event in words: "n2 OOM kill #1 (seen between 11.8s and
// 12.0s)".
func describe(e Event) string {
	switch e.Kind {
	case EvOOMKill:
		return e.Node + " " + e.Detail
	case EvRestart:
		return fmt.Sprintf("%s %s between %s and %s", e.Node, e.Detail, Secs(e.FromMs), Secs(e.TMs))
	}
	return fmt.Sprintf("%s died (%s) between %s and %s", e.Node, e.Detail, Secs(e.FromMs), Secs(e.TMs))
}

func describeAll(events []Event) []string {
	out := make([]string, len(events))
	for i, e := range events {
		out[i] = describe(e)
	}
	return out
}

func anomalyWords(as []checker.Anomaly) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = a.Description
	}
	return out
}

// firstFew joins the first n items, saying how many more there are.
func firstFew(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, "; ")
	}
	return strings.Join(items[:n], "; ") + fmt.Sprintf("; and %d more", len(items)-n)
}

// answered counts the state readings that answered.
func answered(states []StateSample) int {
	n := 0
	for _, s := range states {
		if s.Err == "" {
			n++
		}
	}
	return n
}

// unreadNodes are the nodes of the start line no state reading of which
// answered, each with its last error.
func unreadNodes(rec *Record, states []StateSample) []string {
	ok, lastErr := map[string]bool{}, map[string]string{}
	for _, s := range states {
		if s.Err == "" {
			ok[s.Node] = true
		} else {
			lastErr[s.Node] = s.Err
		}
	}
	var out []string
	for _, n := range rec.Nodes {
		if !ok[n] {
			out = append(out, fmt.Sprintf("%s (%s)", n, cmp.Or(lastErr[n], "no reading at all")))
		}
	}
	return out
}
