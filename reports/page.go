package reports

import (
	"fmt"
	"html/template"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/record"
)

// Page is what a report page shows run-wide. The generic parts are filled
// in first; a view's Page method then adds or replaces what is its own.
type Page struct {
	Run    *Run
	Judged []record.JudgedCell  // every cell under the expectations, in order
	Unused []record.Expectation // expectations that matched no cell
	Labels []string             // each cell's short name, by what sets it apart
	// Headline is the verdict in one sentence, cut into one clause a cell
	// (the page shows one a line; joined with spaces they read as one).
	Headline []string
	// Kicker names what the run tested, over the headline; TitleWhat goes
	// into the window title before "run" ("catch-up "; usually empty).
	Kicker, TitleWhat string
	Intro             template.HTML // "What was tested": a <section>, or empty
	// Rows are the cells table's rows; the rows of the checks, one a
	// check, follow them, each with its hint from CheckHints.
	Rows       []MatrixRow
	CheckHints map[string]string
	Blocks     []Block // between the cells table and the charts
	// TimelineLead says how to read the charts over time; ChartKinds
	// orders their rows (kinds not listed follow, in the order met).
	TimelineLead string
	ChartKinds   []string
	Cols         int // charts side by side: 1 or 2
	Params       []Param
}

// NewPage is the page of a loaded run: the generic parts, then the
// workload view's.
func NewPage(r *Run) *Page {
	res := r.Result
	p := &Page{Run: r, Kicker: "NATS JetStream under faults, workload " + record.StoredWorkload(res.Spec.Workload),
		TimelineLead: "Time is seconds since the workload started. Shaded bands are fault windows, labelled with the fault and its targets " +
			"(each cell's Faults table below has the details); the dashed line is the end of the workload. The final reads after recovery are " +
			"not drawn. Throughput, latency and memory charts share their axes across cells, so the cells compare at a glance; error charts " +
			"are scaled per cell, so a handful of errors stays visible.",
		ChartKinds: []string{KindThroughput, KindLatency, KindErrors, KindMemory}}
	p.Judged, p.Unused = record.JudgeRun(res, r.Expect)
	p.Labels = ShortLabels(res.Cells, nil)
	sentences := make([]string, len(res.Cells))
	for i, c := range res.Cells {
		sentences[i] = CheckSentence(c)
	}
	p.Headline = HeadlineOf(res, p.Judged, p.Labels, sentences, "no anomaly")
	p.Rows = []MatrixRow{GroupRow("Setup"), p.DirectGetRow("any replica answers direct gets when on"), p.VersionRow(),
		p.FaultsRow(), p.OpsRow(), GroupRow("After the faults"), p.RecoveryRow()}
	// Two cells (Direct Get on and off) stand side by side; more stack as
	// small multiples, one chart a line, so each stays wide enough to read.
	p.Cols = 1
	if len(res.Cells) == 2 {
		p.Cols = 2
	}
	p.Params = params(r)
	p.Blocks = runBlocks(res)
	if r.view != nil {
		r.view.Page(p)
	}
	for _, c := range res.Checks { // across cells: in the headline, whatever the view said
		if c.Verdict != checker.Valid {
			p.Headline = append(p.Headline, fmt.Sprintf("Across cells, %s is %s: %s.", c.Name, c.Verdict, strings.TrimSuffix(c.Summary, ".")))
		}
	}
	return p
}

// collapse names each label once, in order, with how many cells bear it
// when more than one: runs of one cell share its label.
func collapse(labels []string) []string {
	n := map[string]int{}
	var order []string
	for _, l := range labels {
		if n[l] == 0 {
			order = append(order, l)
		}
		n[l]++
	}
	for i, l := range order {
		if n[l] > 1 {
			order[i] = fmt.Sprintf("%s: %d cells", l, n[l])
		}
	}
	return order
}

// HeadlineOf joins one clause a cell into the verdict sentence: "label:
// sentence;" each, the last ending the sentence. Past four cells, the
// valid ones are counted, not named; all valid, the sentence says which
// cells found noneFound ("no anomaly"). A cell whose anomalies were all
// expected says so.
func HeadlineOf(res record.Result, judged []record.JudgedCell, labels, sentences []string, noneFound string) []string {
	if len(res.Cells) == 0 {
		if res.Interrupted {
			return []string{"The run was interrupted before any cell finished."}
		}
		return []string{"No cell ran."}
	}
	var parts, quiet []string
	for i, c := range res.Cells {
		if len(res.Cells) > maxListed && c.Verdict == record.Valid {
			quiet = append(quiet, labels[i])
			continue
		}
		part := labels[i] + ": " + sentences[i]
		if c.Verdict == record.Invalid && i < len(judged) && judged[i].Verdict == record.Valid {
			part += " (expected)"
		}
		parts = append(parts, part)
	}
	switch {
	case len(parts) == 0:
		return []string{fmt.Sprintf("All %d cells valid: %s (%s).", len(quiet), noneFound, strings.Join(collapse(quiet), "; "))}
	case len(quiet) > 0:
		parts = append(parts, fmt.Sprintf("the other %d cells: none", len(quiet)))
	}
	for i := range parts[:len(parts)-1] {
		parts[i] += ";"
	}
	parts[len(parts)-1] += "."
	if res.Interrupted {
		parts = append(parts, "The run was interrupted: cells after these did not run.")
	}
	return parts
}

// maxListed is how many cells the headline names one by one; past it, it
// names the cells with findings and counts the rest.
const maxListed = 4

// InsertParams puts ps after the entry named after (at the end when there
// is none).
func InsertParams(list []Param, after string, ps ...Param) []Param {
	at := len(list)
	for i, p := range list {
		if p.K == after {
			at = i + 1
		}
	}
	out := append(append(append([]Param(nil), list[:at]...), ps...), list[at:]...)
	return out
}
