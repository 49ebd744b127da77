package reports

import (
	"fmt"
	"math"
	"path"
	"sort"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
)

type cellView struct {
	Anchor, Label, Short, Verdict, Class, Sentence, Error, Reproduce string
	Expected                                                         []string
	Facts                                                            []kv
	ChartNote                                                        string
	charts                                                           map[string]*chart
	Faults                                                           []faultRow
	Recovery                                                         string
	Checks                                                           []checkRow
	Files, Logs, Configs, Porcupine                                  []link
	CU                                                               *cuView // a catch-up cell's own parts
}

type faultRow struct {
	Fault, Targets, From, To, Inject, Heal, State, StateClass, Detail string
}

type checkRow struct {
	Name, Verdict, Class, Summary, Reason, Note string
	Examples                                    []string
	More                                        int
}

func buildCell(r *Run, c *Cell, j JudgedCell, short string, s Summary) cellView {
	v := cellView{Anchor: anchor(c.Name), Label: c.Label, Short: short, Verdict: verdictWord(c.CellResult.Verdict, j),
		Class: verdictClass(string(j.Verdict)), Sentence: s.Sentence(), Error: c.Error, Reproduce: j.Reproduce}
	if v.Label == "" {
		v.Label = c.Cell.Label()
	}
	for _, e := range j.Expected {
		v.Expected = append(v.Expected, e.String())
	}
	v.Facts = cellFacts(c)
	if isCatchupRun(r.Result) {
		v.checkRows(j)
		v.links(r, c)
		catchupCell(r, c, &v, SummarizeCatchup(c.CellResult, c.Catchup))
		return v
	}
	// The clients stop at the time limit; the workload phase also holds the
	// nemesis healing its last fault.
	workload := r.Result.Spec.TimeLimit.Seconds()
	if workload <= 0 {
		workload = c.Phases["workload"]
	}
	xmax := timeAxis(c.Series, c.Faults, workload)
	bands, marks := faultBands(c.Faults), workloadMark(workload)
	v.charts = map[string]*chart{}
	if c.Series != nil && c.Series.Ops > 0 {
		v.charts[chThroughput] = throughputChart(c.Series, bands, marks, xmax)
		v.charts[chLatency] = latencyChart(c.Series, bands, marks, xmax)
		v.charts[chErrors] = errorChart(c.Series, bands, marks, xmax)
	} else {
		v.ChartNote = "No charts: " + orDefault(c.SeriesErr, "the history is empty") + "."
	}
	if c.Memory != nil {
		v.charts[chMemory] = memoryChart(c.Memory, bands, xmax)
	} else if c.MemoryErr != "" {
		v.ChartNote += " Memory: " + c.MemoryErr + "."
	}
	for _, w := range c.Faults {
		fr := faultRow{Fault: w.Fault, Targets: strings.Join(w.Targets, ", "), From: fmt.Sprintf("%.1f s", w.Start.Seconds()),
			To: fmt.Sprintf("%.1f s", w.End.Seconds()), Inject: fmtSec(w.Inject), Heal: fmtSec(w.Heal), Detail: w.Detail}
		switch {
		case !w.Injected:
			fr.State, fr.StateClass = "not injected", "bad"
		case !w.Verified:
			fr.State, fr.StateClass = "not verified", "unk"
		default:
			fr.State, fr.StateClass = "verified", "ok"
		}
		v.Faults = append(v.Faults, fr)
	}
	if c.Recovery != nil {
		v.Recovery = c.Recovery.Detail
	}
	v.checkRows(j)
	v.links(r, c)
	return v
}

// checkRows lists the cell's checks as judged.
func (v *cellView) checkRows(j JudgedCell) {
	for _, jr := range j.Checks {
		cr := checkRow{Name: jr.Name, Verdict: string(jr.Verdict), Class: verdictClass(string(jr.Effective)), Summary: jr.Summary,
			Reason: jr.Reason, Note: jr.Note}
		if jr.Expected != "" && jr.Verdict == checker.Invalid {
			cr.Verdict += " (expected)"
		}
		for i, a := range jr.Anomalies {
			if i == 5 {
				cr.More = len(jr.Anomalies) - i
				break
			}
			cr.Examples = append(cr.Examples, a.Description)
		}
		v.Checks = append(v.Checks, cr)
	}
}

// links lists the cell's files, logs, configs and porcupine pages.
func (v *cellView) links(r *Run, c *Cell) {
	if c.Rel != "" {
		for _, f := range []struct{ rel, text string }{
			{"history.jsonl", "history.jsonl (every operation)"},
			{"stream.jsonl", "stream.jsonl (the bucket's stream read back)"},
			{"results.json", "results.json (this cell's numbers)"},
			{MemoryFile, "memory.json"},
		} {
			l := fileLink(r.Dir, path.Join(c.Rel, f.rel), f.text)
			if l.Href == "" && f.rel == MemoryFile {
				continue
			}
			v.Files = append(v.Files, l)
		}
		for _, f := range relFiles(r.Dir, c.Rel, "logs/*") {
			v.Logs = append(v.Logs, link{Text: path.Base(f), Href: hrefPath(f)})
		}
		for _, f := range relFiles(r.Dir, c.Rel, "config/*") {
			v.Configs = append(v.Configs, link{Text: path.Base(f), Href: hrefPath(f)})
		}
		for _, f := range relFiles(r.Dir, c.Rel, "porcupine/*.html") {
			v.Porcupine = append(v.Porcupine, link{Text: porcupineName(path.Base(f)), Href: hrefPath(f)})
		}
	}
}

const (
	chThroughput = "Throughput"
	chLatency    = "Latency"
	chErrors     = "Errors over time"
	chMemory     = "Memory per node"
)

// timelines lays the cells' charts side by side, one row per kind, with
// one y axis per row so the cells compare at a glance.
func timelines(cells []cellView, cols int) []timelineRow {
	var rows []timelineRow
	w := 1100
	if cols > 1 {
		w = 560
	}
	for _, kind := range []string{chThroughput, chLatency, chErrors, chTarget, chMemory, chLag, chPublish} {
		var cs []*chart
		for _, c := range cells {
			if ch := c.charts[kind]; ch != nil {
				cs = append(cs, ch)
			}
		}
		if len(cs) == 0 {
			continue
		}
		hi, lo, xmax := 0.0, math.Inf(1), 0.0
		for _, ch := range cs {
			if l, h := ch.yRange(); !math.IsNaN(h) {
				hi, lo = math.Max(hi, h), math.Min(lo, l)
			}
			xmax = math.Max(xmax, ch.XMax)
		}
		// Error counts keep their own scale: a few timeouts next to
		// thousands of rejections would vanish on a shared one.
		shareY := kind != chErrors
		row := timelineRow{Title: kind}
		for _, c := range cells {
			ch := c.charts[kind]
			if ch == nil && cols == 1 {
				// Stacked one a line, a missing chart is a line of text.
				why := "no memory samples recorded"
				if kind != chMemory {
					why = strings.TrimSuffix(strings.TrimPrefix(orDefault(c.ChartNote, why), "No charts: "), ".")
				}
				row.Missing = append(row.Missing, c.Short+" ("+why+")")
				continue
			}
			if ch == nil {
				why := orDefault(c.ChartNote, "no data")
				if kind == chMemory {
					why = "no memory samples recorded for this cell"
				}
				ch = &chart{Title: kind, Empty: why}
			} else {
				ch.XMax = xmax
				if shareY && hi > 0 {
					ch.YMax = hi
					if ch.YLog && lo > 0 && !math.IsInf(lo, 0) {
						ch.YMin = lo
					}
				}
			}
			if len(cells) > cols {
				ch.Title = c.Short + ": " + ch.Title
				if cols == 1 {
					ch.H = 220
				}
			}
			ch.W = w
			row.Charts = append(row.Charts, ch.HTML())
		}
		rows = append(rows, row)
	}
	return rows
}

// porcupineName turns linearizability-k0-7.html into "key k0, piece 7".
func porcupineName(base string) string {
	s := strings.TrimSuffix(strings.TrimPrefix(base, "linearizability-"), ".html")
	if i := strings.LastIndex(s, "-"); i > 0 {
		return fmt.Sprintf("key %s, piece %s", s[:i], s[i+1:])
	}
	return base
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

func cellFacts(c *Cell) []kv {
	f := []kv{{"Direct Get", onOff(c.DirectGet)}, {"nats-server", c.ServerVersion}, {"nemesis", orDefault(c.Nemesis, "none")}}
	if c.Runtime != "" {
		f = append(f, kv{"runtime", c.Runtime})
	}
	if kvOf(c.Settings).Bucket != "" {
		f = append(f, kv{"bucket", kvWords(kvOf(c.Settings))})
	}
	if c.Ops.Total > 0 {
		f = append(f, kv{"ops", fmt.Sprintf("%s: %s ok, %s failed, %s indeterminate", fmtCount(c.Ops.Total), fmtCount(c.Ops.OK),
			fmtCount(c.Ops.Failed), fmtCount(c.Ops.Indeterminate))})
	}
	if c.Stream.Entries > 0 || c.Stream.Complete {
		st := "complete"
		if !c.Stream.Complete {
			st = "INCOMPLETE"
		}
		f = append(f, kv{"stream read back", fmt.Sprintf("%s entries, %s", fmtCount(c.Stream.Entries), st)})
	}
	if len(c.Phases) > 0 {
		var ks []string
		for k := range c.Phases {
			ks = append(ks, k)
		}
		sort.Slice(ks, func(a, b int) bool { return phaseOrder(ks[a]) < phaseOrder(ks[b]) })
		var parts []string
		for _, k := range ks {
			parts = append(parts, fmt.Sprintf("%s %.1fs", strings.ReplaceAll(k, "_", " "), c.Phases[k]))
		}
		f = append(f, kv{"phases", strings.Join(parts, ", ")})
	}
	if !c.StartedAt.IsZero() {
		f = append(f, kv{"started", c.StartedAt.UTC().Format("2006-01-02 15:04:05 UTC")})
	}
	return f
}

func phaseOrder(p string) int {
	for i, k := range []string{"cluster_start", "setup", "workload", "recovery", "check", "teardown"} {
		if k == p {
			return i
		}
	}
	return 99
}
