package reports

import (
	"embed"
	"fmt"
	"html/template"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/run"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/catchup"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/kvupdate"
)

//go:embed report.html.tmpl report.css
var assets embed.FS

var pageTmpl = template.Must(template.New("report.html.tmpl").Funcs(template.FuncMap{
	"css": func() template.CSS {
		b, _ := assets.ReadFile("report.css")
		return template.CSS(b)
	},
	"inc": func(n int) int { return n + 1 },
}).ParseFS(assets, "report.html.tmpl"))

// link is a relative link to a stored file; Href is empty when the file is
// missing, and the page shows the name without a link.
type link struct {
	Text, Href, Note string
}

type kv struct{ K, V string }

type page struct {
	RunID, Verdict, VerdictClass, VerdictLine, Headline string
	// Kicker names what the run tested, over the headline; TitleWhat goes
	// into the window title ("catch-up "; empty for kv-update).
	Kicker, TitleWhat, TimelineLead                string
	ExplainCatchup                                 bool
	HeadlineParts                                  []string
	Expected                                       []string
	Unused                                         []string
	Partial, Interrupted, DirectGetBoth, ExplainKV bool
	Matrix                                         matrix
	Staleness                                      template.HTML
	NoStale                                        bool
	Timelines                                      []timelineRow
	Cols                                           int
	ColHeads                                       bool // one cell a column: name them once over the charts
	Cells                                          []cellView
	Params                                         []kv
	Command, ReportCommand, Generated              string
	RunFiles                                       []link
}

// timelineRow is one kind of chart, one per cell side by side.
type timelineRow struct {
	Title   string
	Charts  []template.HTML
	Missing []string // cells without this chart, when charts stack
}

func verdictClass(v string) string {
	switch v {
	case "valid":
		return "ok"
	case "invalid":
		return "bad"
	case "unknown":
		return "unk"
	}
	return "err"
}

// HTML writes the report page for a loaded run.
func HTML(w io.Writer, r *Run) error {
	return pageTmpl.Execute(w, buildPage(r, time.Now()))
}

func buildPage(r *Run, now time.Time) page {
	res := r.Result
	exps := r.Expect
	judged, unused := JudgeRun(res, exps)
	eff := EffectiveVerdict(res, exps)
	if len(exps) == 0 && !res.Interrupted && len(res.Cells) > 0 {
		eff = res.Verdict
	}
	p := page{RunID: res.ID, Verdict: strings.ToUpper(string(eff)), VerdictClass: verdictClass(string(eff)),
		VerdictLine: VerdictLine(eff, res.Verdict), Partial: r.Partial, Interrupted: res.Interrupted,
		Command: res.Command, Generated: now.UTC().Format("2006-01-02 15:04:05 UTC")}
	if res.Interrupted {
		p.VerdictLine = "The run was interrupted (exit code 130); the cells below are what it finished."
	}
	for _, e := range exps {
		p.Expected = append(p.Expected, e.String())
	}
	for _, e := range unused {
		p.Unused = append(p.Unused, e.String())
	}
	on, off := false, false
	for _, c := range res.Cells {
		on, off = on || c.DirectGet, off || !c.DirectGet
	}
	p.DirectGetBoth = on && off
	p.ExplainKV = res.Spec.Workload == "" || res.Spec.Workload == "kv-update"
	p.ReportCommand = "chaos report " + shellArg(r.Dir)
	p.Kicker = "NATS JetStream KV under faults"
	p.TimelineLead = "Time is seconds since the workload started. Shaded bands are fault windows, labelled with the fault and its targets " +
		"(each cell's Faults table below has the details); the dashed line is the end of the workload. The final reads after recovery are " +
		"not drawn. Throughput, latency and memory charts share their axes across cells, so the cells compare at a glance; error charts " +
		"are scaled per cell, so a handful of errors stays visible."

	labels := cellLabels(res)
	sums := make([]Summary, len(res.Cells))
	for i, c := range res.Cells {
		sums[i] = Summarize(c)
	}
	if isCatchupRun(res) {
		cus := make([]*catchup.Result, len(res.Cells))
		for i := range res.Cells {
			if i < len(r.Cells) {
				cus[i] = r.Cells[i].Catchup
			}
		}
		p.HeadlineParts = headlineParts(res, exps, cus)
		p.Headline = strings.Join(p.HeadlineParts, " ")
		p.Kicker, p.TitleWhat, p.ExplainCatchup = "NATS JetStream replica catch-up", "catch-up ", true
		if lim := specCatchup(res.Spec); lim != nil && lim.MemoryLimit > 0 {
			p.Kicker += " under a memory limit of " + fmtSize(int64(lim.MemoryLimit))
		}
		p.TimelineLead = "Time is seconds since the cell started filling the stream. The grey band is the target down (killed, its store " +
			"wiped), the blue band its catch-up after the restart; red lines are OOM kills, the green line the moment it was current. " +
			"Memory is drawn per node: solid the cgroup usage (what the limit counts, page cache included), dashed the resident memory (RSS), " +
			"red dashed the limit. Each kind of chart shares its axes across cells."
		p.Matrix = buildCatchupMatrix(r, judged, labels, catchupSummaries(r))
	} else {
		p.HeadlineParts = headlineParts(res, exps, nil)
		p.Headline = strings.Join(p.HeadlineParts, " ")
		p.Matrix = buildMatrix(r, judged, labels, sums)
	}
	if anyStale(sums) {
		p.Staleness = stalenessChart(labels, sums).HTML()
	} else {
		for _, s := range sums {
			p.NoStale = p.NoStale || s.HasStale
		}
	}
	for i, c := range r.Cells {
		p.Cells = append(p.Cells, buildCell(r, c, judged[i], labels[i], sums[i]))
	}
	// Two cells (Direct Get on and off) stand side by side; more stack as
	// small multiples, one chart a line, so each stays wide enough to read.
	p.Cols = 1
	if len(p.Cells) == 2 || (isCatchupRun(res) && pairedByDirectGet(res.Cells)) {
		// A catch-up matrix pairs Direct Get on and off of each version:
		// one version a row.
		p.Cols = 2
	}
	p.ColHeads = len(p.Cells) == 2
	p.Timelines = timelines(p.Cells, p.Cols)
	p.Params = params(r)
	for _, f := range []string{"results.json", "run.json", "junit.xml"} {
		p.RunFiles = append(p.RunFiles, fileLink(r.Dir, f, f))
	}
	return p
}

func anyStale(sums []Summary) bool {
	for _, s := range sums {
		if s.Stale > 0 {
			return true
		}
	}
	return false
}

func anchor(name string) string {
	return "cell-" + strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '-'
	}, name)
}

// fileLink links rel (slash-separated, relative to dir) when it exists.
func fileLink(dir, rel, text string) link {
	if exists(filepath.Join(dir, filepath.FromSlash(rel))) {
		return link{Text: text, Href: hrefPath(rel)}
	}
	return link{Text: text, Note: "missing"}
}

// hrefPath escapes each segment of a relative path for use in href.
func hrefPath(rel string) string {
	parts := strings.Split(rel, "/")
	for i, p := range parts {
		parts[i] = strings.ReplaceAll(template.URLQueryEscaper(p), "+", "%20")
	}
	return strings.Join(parts, "/")
}

func shellArg(s string) string {
	if s != "" && !strings.ContainsAny(s, " '\"$`\\!*?;&|<>()") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func params(r *Run) []kv {
	if isCatchupRun(r.Result) {
		return catchupParams(r)
	}
	s := r.Result.Spec
	versions := strings.Join(s.ServerVersions, ", ")
	p := []kv{
		{"run", r.Result.ID},
		{"workload", s.Workload},
		{"runtime", orDefault(r.Result.Runtime, s.Runtime)},
		{"seed", fmt.Sprint(r.Result.Seed)},
		{"time limit per cell", s.TimeLimit.String()},
		{"Direct Get", joinBools(s.DirectGet)},
		{"nemeses", strings.Join(s.Nemeses, " | ")},
		{"nemesis interval", s.NemesisInterval.String()},
		{"nats-server", versions},
		{"nats.go (client)", r.ClientVersion + " (" + r.ClientVersionSource + ")"},
		{"cluster", s.Cluster.Words()},
		{"recovery timeout / check timeout", fmt.Sprintf("%s / %s", s.RecoveryTimeout, s.CheckTimeout)},
	}
	for i, o := range specKV(s) {
		name := "bucket"
		if len(specKV(s)) > 1 {
			name = fmt.Sprintf("bucket, setting %d", i+1)
		}
		p = append(p, kv{name, kvWords(o)})
	}
	if s.Cluster.SyncInterval != "" {
		p = append(p, kv{"sync interval", s.Cluster.SyncInterval})
	}
	if x := s.Cluster.ExternalSummary(); x != "" {
		p = append(p, kv{"external cluster", x})
	}
	if !r.Result.StartedAt.IsZero() {
		p = append(p, kv{"started", r.Result.StartedAt.UTC().Format("2006-01-02 15:04:05 UTC")})
	}
	return p
}

// kvWords says a workload setting in words.
func kvWords(o kvupdate.Options) string {
	s := fmt.Sprintf("R%d, %d keys, %d clients, %s", o.Replicas, o.Keys, o.Clients, o.Pattern)
	if o.Rate > 0 {
		s += fmt.Sprintf(", %g ops/s", o.Rate)
	}
	if o.OpTimeout > 0 {
		s += ", op timeout " + o.OpTimeout.String()
	}
	return s
}

func joinBools(bs []bool) string {
	var out []string
	for _, b := range bs {
		out = append(out, onOff(b))
	}
	return strings.Join(out, ", ")
}

// catchupParams are a catch-up run's parameters: the matrix, then every
// catch-up option.
func catchupParams(r *Run) []kv {
	s := r.Result.Spec
	p := []kv{
		{"run", r.Result.ID},
		{"workload", s.Workload},
		{"runtime", orDefault(r.Result.Runtime, s.Runtime)},
		{"seed", fmt.Sprint(r.Result.Seed)},
		{"Direct Get", joinBools(s.DirectGet)},
		{"nats-server", strings.Join(s.ServerVersions, ", ")},
		{"nats.go (client)", r.ClientVersion + " (" + r.ClientVersionSource + ")"},
		{"cluster", s.Cluster.Words()},
	}
	if o := specCatchup(s); o != nil {
		if o.Preset != "" {
			p = append(p, kv{"preset", o.Preset})
		}
		lim, gml := "none", o.GoMemLimit.String()
		if o.MemoryLimit > 0 {
			lim = o.MemoryLimit.String()
		}
		if g := o.GoMemLimit.Bytes(o.MemoryLimit); g > 0 {
			gml += " (" + catchup.Bytes(g).String() + ")"
		} else if o.GoMemLimit == catchup.GoMemLimitAuto {
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
		p = append(p,
			kv{"stream / backlog / payload", fmt.Sprintf("%s / %s / %s", o.Stream, o.Backlog, o.Payload)},
			kv{"target", string(o.Target)},
			kv{"down / rate / writes", fmt.Sprintf("%s / %s/s / %s", o.Down, o.Rate, writeFor)},
			kv{"memory limit / GOMEMLIMIT", lim + " / " + gml},
			kv{"max_outstanding_catchup", mo},
			kv{"catch-up timeout / settle", fmt.Sprintf("%s / %s", o.CatchupTimeout, o.Settle)},
			kv{"recovery timeout / verify timeout", fmt.Sprintf("%s / %s", o.RecoveryTimeout, o.VerifyTimeout)},
			kv{"crash loop at", fmt.Sprintf("%d restarts by the runtime", o.CrashLoop)},
			kv{"publishers / window / publish timeout", fmt.Sprintf("%d / %d / %s", o.Publishers, o.Window, o.PublishTimeout)},
			kv{"gets through the target", fmt.Sprintf("%g/s", o.ReadRate)},
			kv{"memory sampling", o.SampleInterval.String()},
		)
	}
	if !r.Result.StartedAt.IsZero() {
		p = append(p, kv{"started", r.Result.StartedAt.UTC().Format("2006-01-02 15:04:05 UTC")})
	}
	return p
}

// pairedByDirectGet: the cells come in pairs of one version, Direct Get on
// and off.
func pairedByDirectGet(cells []run.CellResult) bool {
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
