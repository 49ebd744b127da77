package reports

import (
	"fmt"
	"html/template"
	"math"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/findings"
	"github.com/jetstream-chaos/jetstream-chaos/observe"
	"github.com/jetstream-chaos/jetstream-chaos/record"
	"github.com/jetstream-chaos/jetstream-chaos/watch"
)

// CellSection is what the page shows of one cell. The generic parts are
// filled in first; a view's Cell method then adds or replaces its own.
type CellSection struct {
	Anchor, Label, Short, Verdict, Class string
	Sentence                             string // the cell's finding in words
	Error, Reproduce                     string
	Expected                             []string
	Facts                                []Param
	ChartNote                            string   // why charts are missing
	Charts                               []*Chart // over time, each of a Kind, drawn side by side with the other cells'
	Faults                               []faultRow
	// Triggered: a window waited for an event, and the faults table says
	// what each one's trigger did. Watch is a watched cell's events by
	// kind; WatchNotes what could not be followed or read.
	Triggered  bool
	Watch      string
	WatchNotes []string
	lane       []laneItem // drawn over Charts
	Recovery   string
	Online     string   // what the online checks saw during the workload
	Findings   []Link   // finding.md and its sections, ready to file
	Summary    []string // the workload's own account of the cell
	// Extra is the workload's own part of the section, after the faults
	// and the recovery, before the checks.
	Extra                           template.HTML
	Checks                          []checkRow
	Files, Logs, Configs, Porcupine []Link
}

type faultRow struct {
	Fault, Targets, From, To, Inject, Heal, State, StateClass, Trigger, Detail string
}

type checkRow struct {
	Name, Verdict, Class, Summary, Reason, Note string
	Examples                                    []string
	More                                        int
}

// Kinds of the charts of history.jsonl and memory (Chart.Kind): a row of
// charts over time each.
const (
	KindThroughput = "Throughput"
	KindLatency    = "Latency"
	KindErrors     = "Errors over time"
	KindMemory     = "Memory per node"
)

func buildCell(p *Page, c *Cell, j record.JudgedCell, short string) *CellSection {
	v := &CellSection{Anchor: anchor(c.Name), Label: c.Label, Short: short, Verdict: VerdictWord(c.CellResult.Verdict, j),
		Class: VerdictClass(string(j.Verdict)), Sentence: CheckSentence(c.CellResult), Error: c.Error, Reproduce: j.Reproduce}
	if v.Label == "" {
		v.Label = c.Cell.Label()
	}
	for _, e := range j.Expected {
		v.Expected = append(v.Expected, e.String())
	}
	v.Facts = cellFacts(c)
	lane := cellLane(c)
	v.charts(p, c, lane)
	for _, w := range c.Faults {
		fr := faultRow{Fault: w.Fault, Targets: strings.Join(w.Targets, ", "), From: fmt.Sprintf("%.1f s", w.Start.Seconds()),
			To: fmt.Sprintf("%.1f s", w.End.Seconds()), Inject: FormatSeconds(w.Inject), Heal: FormatSeconds(w.Heal),
			Trigger: triggerWords(w), Detail: w.Detail}
		v.Triggered = v.Triggered || w.Trigger != ""
		switch {
		case w.NeverFired():
			fr.State, fr.StateClass, fr.Inject, fr.Heal = "never fired", ClassUnknown, "–", "–"
		case !w.Injected:
			fr.State, fr.StateClass = "not injected", ClassBad
		case !w.Verified:
			fr.State, fr.StateClass = "not verified", ClassUnknown
		default:
			fr.State, fr.StateClass = "verified", ClassOK
		}
		v.Faults = append(v.Faults, fr)
	}
	v.Watch, v.WatchNotes = watchWords(c)
	if c.Recovery != nil {
		v.Recovery = c.Recovery.Detail
	}
	v.Online = onlineWords(c.Online)
	v.Summary = c.Summary
	v.findings(p.Run, c)
	v.checkRows(j)
	v.links(p.Run, c)
	if p.Run.view != nil {
		p.Run.view.Cell(p, c, v)
	}
	v.drawLane(lane)
	return v
}

// drawLane puts the cell's events and triggered effects over each of its
// charts over time, a view's included, whose axis it stretches to the last.
func (v *CellSection) drawLane(lane []laneItem) {
	if len(lane) == 0 {
		return
	}
	v.lane = lane
	for _, ch := range v.Charts {
		if ch.timed {
			ch.lane = lane
			if ch.XMax > 0 {
				ch.XMax = math.Max(ch.XMax, laneEnd(lane))
			}
		}
	}
}

// onlineWords says what the online checks saw, and when the first one was.
func onlineWords(o *record.Online) string {
	if o == nil {
		return ""
	}
	s := "during the workload: " + o.Line()
	if o.First != nil {
		s += fmt.Sprintf("; the first anomaly (%s) came %.2f s into the workload", strings.ReplaceAll(o.First.Kind, "_", " "), o.FirstAfter.Seconds())
	}
	if o.Stopped {
		s += "; --stop-on-anomaly ended the workload there"
	}
	return s
}

// findings links the cell's finding.md and each of its sections.
func (v *CellSection) findings(r *Run, c *Cell) {
	if c.Rel == "" {
		return
	}
	rel := path.Join(c.Rel, findings.FileName)
	if !exists(filepath.Join(r.Dir, filepath.FromSlash(rel))) {
		return
	}
	fs, _, err := findings.Build(filepath.Join(r.Dir, filepath.FromSlash(c.Rel)))
	if err != nil || len(fs) == 0 {
		v.Findings = append(v.Findings, Link{Text: findings.FileName, Href: hrefPath(rel)})
		return
	}
	for _, f := range fs {
		text := f.Title
		if f.AfterPowerLoss { // NATS documents such a loss: the section says why first
			text += " (after a power loss: read its note before filing)"
		}
		v.Findings = append(v.Findings, Link{Text: text, Href: hrefPath(rel) + "#" + f.Class})
	}
}

// charts draws the cell's history and memory over time.
func (v *CellSection) charts(p *Page, c *Cell, lane []laneItem) {
	// The clients stop at the time limit; the workload phase also holds the
	// nemesis healing its last fault.
	workload := p.Run.Result.Spec.TimeLimit.Seconds()
	if workload <= 0 {
		workload = c.Phases["workload"]
	}
	xmax := math.Max(timeAxis(c.Series, c.Faults, workload), laneEnd(lane))
	bands, marks := faultBands(c.Faults), workloadMark(workload)
	if c.Series != nil && c.Series.Ops > 0 {
		v.Charts = append(v.Charts, throughputChart(c.Series, bands, marks, xmax), latencyChart(c.Series, bands, marks, xmax),
			errorChart(c.Series, bands, marks, xmax))
	} else {
		v.ChartNote = "No charts: " + orDefault(c.SeriesErr, "the history is empty") + "."
	}
	if c.Memory != nil {
		v.Charts = append(v.Charts, MemoryChart(c.Memory, bands, xmax))
	} else if c.MemoryErr != "" {
		v.ChartNote += " Memory: " + c.MemoryErr + "."
	}
}

// checkRows lists the cell's checks as judged.
func (v *CellSection) checkRows(j record.JudgedCell) {
	for _, jr := range j.Checks {
		cr := checkRow{Name: jr.Name, Verdict: string(jr.Verdict), Class: VerdictClass(string(jr.Effective)), Summary: jr.Summary,
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
func (v *CellSection) links(r *Run, c *Cell) {
	if c.Rel == "" {
		return
	}
	for _, f := range []struct{ rel, text string }{
		{"history.jsonl", "history.jsonl (every operation)"},
		{"stream.jsonl", "stream.jsonl (the bucket's stream read back)"},
		{"results.json", "results.json (this cell's numbers)"},
		{observe.File, observe.File + " (every node over time: memory, the runtime's state, /healthz, its copy of the stream)"},
		{watch.EventsFile, "cluster-events.jsonl (what the watcher saw)"},
	} {
		l := FileLink(r.Dir, path.Join(c.Rel, f.rel), f.text)
		if (l.Href == "" && f.rel == observe.File) || (f.rel == watch.EventsFile && (l.Href == "" || c.Watch == nil)) {
			continue
		}
		v.Files = append(v.Files, l)
	}
	for _, f := range relFiles(r.Dir, c.Rel, "logs/*") {
		v.Logs = append(v.Logs, Link{Text: path.Base(f), Href: hrefPath(f)})
	}
	for _, f := range relFiles(r.Dir, c.Rel, "config/*") {
		v.Configs = append(v.Configs, Link{Text: path.Base(f), Href: hrefPath(f)})
	}
	for _, f := range relFiles(r.Dir, c.Rel, "porcupine/*.html") {
		v.Porcupine = append(v.Porcupine, Link{Text: porcupineName(path.Base(f)), Href: hrefPath(f)})
	}
}

// CellFiles are the files of a cell's folder that match glob, relative to
// the run folder and sorted; link one with Href.
func (r *Run) CellFiles(c *Cell, glob string) []string {
	if c.Rel == "" {
		return nil
	}
	return relFiles(r.Dir, c.Rel, glob)
}

// Href is rel (slash-separated, relative to the run folder) as a link.
func Href(rel string) string { return hrefPath(rel) }

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

func cellFacts(c *Cell) []Param {
	f := []Param{{"Direct Get", OnOff(c.DirectGet)}, {"nats-server", c.ServerVersion}, {"nemesis", orDefault(c.Nemesis, "none")}}
	if c.Runtime != "" {
		f = append(f, Param{"runtime", c.Runtime})
	}
	if c.Ops.Total > 0 {
		f = append(f, Param{"ops", fmt.Sprintf("%s: %s ok, %s failed, %s indeterminate", FormatCount(c.Ops.Total), FormatCount(c.Ops.OK),
			FormatCount(c.Ops.Failed), FormatCount(c.Ops.Indeterminate))})
	}
	if c.Stream.Entries > 0 || c.Stream.Complete {
		st := "complete"
		if !c.Stream.Complete {
			st = "INCOMPLETE"
		}
		f = append(f, Param{"stream read back", fmt.Sprintf("%s entries, %s", FormatCount(c.Stream.Entries), st)})
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
		f = append(f, Param{"phases", strings.Join(parts, ", ")})
	}
	if !c.StartedAt.IsZero() {
		f = append(f, Param{"started", c.StartedAt.UTC().Format("2006-01-02 15:04:05 UTC")})
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
