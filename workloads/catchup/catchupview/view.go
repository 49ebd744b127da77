package catchupview

import (
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"os"
	"slices"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/internal/bytesize"
	"github.com/jetstream-chaos/jetstream-chaos/record"
	"github.com/jetstream-chaos/jetstream-chaos/reports"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/catchup"
)

// catchupView is the reports.View of a catch-up run (see the package doc).
type catchupView struct{}

func init() {
	reports.RegisterView("catchup", catchupView{})
	reports.RegisterMemorySource(catchupMemory)
}

// readMeasured reads a cell's catchup.json, which in older runs also held
// the checks and the harness error (read only for a cell whose
// results.json is missing); nil, nil when there is none.
func readMeasured(cellDir string) (*catchup.Result, error) {
	r, err := catchup.Read(cellDir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, err
	}
	return &r, catchup.Complete(cellDir, &r)
}

// measuredOf is what the view loaded for a cell, nil when nothing.
func measuredOf(c *reports.Cell) *catchup.Result {
	m, _ := c.Data.(*catchup.Result)
	return m
}

// Load reads catchup.json, and the memory chart's series from it.
func (catchupView) Load(cellDir string, c *reports.Cell) error {
	if cellDir == "" {
		return nil
	}
	m, err := readMeasured(cellDir)
	if m != nil {
		c.Data, c.Memory = m, memoryOfCatchup(*m)
	}
	return err
}

// CutShort points a cell without results.json at its measurements.
func (catchupView) CutShort() string { return "what was measured is in " + catchup.ResultFile }

func (catchupView) Page(p *reports.Page) {
	r := p.Run
	sums := catchupSummaries(r)
	p.Labels = catchupLabels(r.Result.Cells)
	p.Headline = catchupHeadline(r.Result, p.Judged, p.Labels, sums)
	p.Kicker, p.TitleWhat, p.Intro = "NATS JetStream replica catch-up", "catch-up ", catchupIntro
	if o := specOptions(r.Result.Spec); o != nil && o.MemoryLimit > 0 {
		p.Kicker += " under a memory limit of " + reports.FormatSize(int64(o.MemoryLimit))
	}
	p.TimelineLead = "Time is seconds since the cell started filling the stream. The grey band is the target down (killed, its store " +
		"wiped), the blue band its catch-up after the restart; red lines are OOM kills, the green line the moment it was current. " +
		"Memory is drawn per node: solid the cgroup usage (what the limit counts, page cache included), dashed the resident memory (RSS), " +
		"red dashed the limit. Publishes and the gets through the target are drawn per second from the history. Each kind of chart shares its axes across cells."
	p.Rows, p.CheckHints = catchupRows(p, sums), catchupCheckHints
	p.ChartKinds = []string{kindTarget, reports.KindMemory, kindLag, reports.KindThroughput, reports.KindLatency, reports.KindErrors}
	if pairedByDirectGet(r.Result.Cells) {
		// One version a row: Direct Get on and off side by side.
		p.Cols = 2
	}
	// The run's parameters but the time limit and check timeout, which bind
	// no catch-up cell (it runs to its own bounds, the catch-up options).
	p.Params = slices.DeleteFunc(p.Params, func(x reports.Param) bool {
		return x.K == "time limit per cell" || x.K == "recovery timeout / check timeout"
	})
	if o := specOptions(r.Result.Spec); o != nil {
		p.Params = reports.InsertParams(p.Params, "cluster", optionParams(*o)...)
	}
	if b, ok := slopeBlock(r); ok {
		p.Blocks = append([]reports.Block{b}, p.Blocks...)
	}
}

func (catchupView) Cell(p *reports.Page, c *reports.Cell, s *reports.CellSection) {
	catchupCell(p.Run, c, s, SummarizeCatchup(c.CellResult, measuredOf(c)))
}

// JUnit carries the catch-up settings as suite properties and the cell's
// sentence on its harness testcase (a catch-up cell has no ops to count).
func (catchupView) JUnit(r *reports.Run, c *reports.Cell) reports.JUnitExtra {
	x := reports.JUnitExtra{Properties: []reports.Param{{K: "workload", V: "catchup"}}}
	if o := specOptions(r.Result.Spec); o != nil {
		x.Properties = append(x.Properties, reports.Param{K: "backlog", V: o.Backlog.String()}, reports.Param{K: "memory_limit", V: o.MemoryLimit.String()},
			reports.Param{K: "gomemlimit", V: o.GoMemLimit.String()}, reports.Param{K: "max_outstanding_catchup", V: o.MaxOutstandingCatchup.String()},
			reports.Param{K: "target", V: string(o.Target)})
	}
	m := measuredOf(c)
	if m != nil && m.Target != "" {
		x.Properties = append(x.Properties, reports.Param{K: "target_node", V: m.Target})
	}
	if m != nil || (c.CellResult.Verdict != record.Error && c.Error == "" && len(c.Checks) > 0) {
		x.Finding = SummarizeCatchup(c.CellResult, m).Sentence()
	}
	return x
}

var catchupIntro = template.HTML(`
<section id="explain" class="explain">
  <h2>What was tested</h2>
  <p>A 3-node NATS JetStream cluster holds a stream replicated on all three nodes (R3), filled with a backlog of messages.
  One replica, the <strong>target</strong>, is killed and its store deleted; publishing goes on while it is down. It then restarts
  empty, under the memory limit when one is set, and must copy the whole stream back from the other replicas: the <strong>catch-up</strong>.
  Each cell is one nats-server version with Direct Get on or off.</p>
  <ul>
    <li><strong>Catch-up time</strong> runs from the restart until the target holds every message the leader had and its <code>/healthz</code> is OK (it is <em>current</em>).</li>
    <li><strong>RSS</strong> is the server process's own memory; <strong>cgroup usage</strong> is what the memory limit counts, page cache included.
    <strong>0.94x</strong> means 0.94 times the size of the stream at the restart.</li>
    <li>An <strong>OOM kill</strong> is the kernel killing the node at its limit; when the runtime restarts it again and again, that is a <strong>crash loop</strong>.</li>
    <li><strong>Nothing lost</strong>: after the heal every message acknowledged to a publisher was read back from the stream, once.</li>
  </ul>
</section>`)

// specOptions are the run's catch-up settings, the first of its settings
// (where record moves an older run's spec.catchup); nil when there are none.
func specOptions(spec record.Spec) *catchup.Options {
	var o catchup.Options
	if len(spec.Settings) == 0 || json.Unmarshal(spec.Settings[0], &o) != nil {
		return nil
	}
	return &o
}

// catchupLabels names catch-up cells by version and Direct Get, the two
// axes of a catch-up matrix: "v2.15.3, Direct Get off". The version is
// always named: memory and catch-up time are what changes between them.
func catchupLabels(cells []record.CellResult) []string {
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = "Direct Get " + reports.OnOff(c.DirectGet)
		if c.Tag != "" { // what sets the cells' settings apart: "backlog-1GiB"
			out[i] = strings.ReplaceAll(strings.ReplaceAll(c.Tag, "-", " "), "+", ", ") + ", " + out[i]
		}
		if c.ServerVersion != "" {
			out[i] = c.ServerVersion + ", " + out[i]
		}
		if c.Repeat > 0 {
			out[i] += fmt.Sprintf(", run %d", c.Repeat)
		}
	}
	return out
}

// catchupSummaries summarizes every cell of a run.
func catchupSummaries(r *reports.Run) []CatchupSummary {
	out := make([]CatchupSummary, len(r.Result.Cells))
	for i, c := range r.Result.Cells {
		var m *catchup.Result
		if i < len(r.Cells) {
			m = measuredOf(r.Cells[i])
		}
		out[i] = SummarizeCatchup(c, m)
	}
	return out
}

// catchupHeadline is one sentence a cell, each named by its label.
func catchupHeadline(res record.Result, judged []record.JudgedCell, labels []string, sums []CatchupSummary) []string {
	if len(res.Cells) == 0 {
		return reports.HeadlineOf(res, judged, labels, nil, "")
	}
	var parts []string
	for i, c := range res.Cells {
		part := labels[i] + ": " + sums[i].Sentence()
		if c.Verdict == record.Invalid && judged[i].Verdict == record.Valid {
			part += " (expected)"
		}
		parts = append(parts, part+".")
	}
	if res.Interrupted {
		parts = append(parts, "The run was interrupted: cells after these did not run.")
	}
	return parts
}

// pairedByDirectGet: the cells pair each version with Direct Get on and off.
func pairedByDirectGet(cells []record.CellResult) bool {
	if len(cells) < 2 || len(cells)%2 != 0 {
		return false
	}
	for i := 0; i < len(cells); i += 2 {
		a, b := cells[i], cells[i+1]
		if a.ServerVersion != b.ServerVersion || a.DirectGet == b.DirectGet {
			return false
		}
	}
	return true
}

// optionParams say every catch-up option.
func optionParams(o catchup.Options) []reports.Param {
	var p []reports.Param
	if o.Preset != "" {
		p = append(p, reports.Param{K: "preset", V: o.Preset})
	}
	lim, gml := "none", o.GoMemLimit.String()
	if o.MemoryLimit > 0 {
		lim = o.MemoryLimit.String()
	}
	if g := o.GoMemLimit.Bytes(int64(o.MemoryLimit)); g > 0 {
		gml += " (" + bytesize.Bytes(g).String() + ")"
	} else if o.GoMemLimit == cluster.GoMemLimitAuto {
		gml += " (unset: no limit)"
	}
	mo := "server default (64 MB)"
	if o.MaxOutstandingCatchup > 0 {
		mo = o.MaxOutstandingCatchup.String()
	}
	writeFor := "until current"
	if o.WriteFor > 0 {
		writeFor = o.WriteFor.String() + " after the restart"
	}
	return append(p,
		reports.Param{K: "stream / backlog / payload", V: fmt.Sprintf("%s / %s / %s", o.Stream, o.Backlog, o.Payload)},
		reports.Param{K: "target", V: string(o.Target)},
		reports.Param{K: "down / rate / writes", V: fmt.Sprintf("%s / %s/s / %s", o.Down, o.Rate, writeFor)},
		reports.Param{K: "memory limit / GOMEMLIMIT", V: lim + " / " + gml},
		reports.Param{K: "max_outstanding_catchup", V: mo},
		reports.Param{K: "catch-up timeout / settle", V: fmt.Sprintf("%s / %s", o.CatchupTimeout, o.Settle)},
		reports.Param{K: "recovery timeout / verify timeout", V: fmt.Sprintf("%s / %s", o.RecoveryTimeout, o.VerifyTimeout)},
		reports.Param{K: "crash loop at", V: fmt.Sprintf("%d restarts by the runtime", o.CrashLoop)},
		reports.Param{K: "publishers / window / publish timeout", V: fmt.Sprintf("%d / %d / %s", o.Publishers, o.Window, o.PublishTimeout)},
		reports.Param{K: "gets through the target", V: fmt.Sprintf("%g/s", o.ReadRate)},
		reports.Param{K: "memory sampling", V: o.SampleInterval.String()},
	)
}
