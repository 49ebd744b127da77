package reports

import (
	"embed"
	"fmt"
	"html/template"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/record"
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

// Link is a relative link to a stored file; Href is empty when the file is
// missing, and the page shows the name without a link.
type Link struct {
	Text, Href, Note string
}

// Param is a named value: a parameter, a fact, a property.
type Param struct{ K, V string }

// htmlPage is what the template reads.
type htmlPage struct {
	*Page
	RunID, Verdict, VerdictClass, VerdictLine string
	Expected, UnusedText                      []string
	Partial, Interrupted                      bool
	Matrix                                    matrix
	Timelines                                 []timelineRow
	ColHeads                                  bool // one cell a column: name them once over the charts
	Cells                                     []*CellSection
	Command, ReportCommand, Generated         string
	RunFiles                                  []Link
}

// timelineRow is one kind of chart, one per cell side by side.
type timelineRow struct {
	Title   string
	Charts  []template.HTML
	Missing []string // cells without this chart, when charts stack
}

// VerdictClass is the CSS class a verdict is shown in.
func VerdictClass(v string) string {
	switch v {
	case "valid":
		return ClassOK
	case "invalid":
		return ClassBad
	case "unknown":
		return ClassUnknown
	}
	return ClassError
}

// HTML writes the report page for a loaded run.
func HTML(w io.Writer, r *Run) error {
	return pageTmpl.Execute(w, buildPage(r, time.Now()))
}

func buildPage(r *Run, now time.Time) htmlPage {
	res := r.Result
	p := NewPage(r)
	eff := record.EffectiveVerdict(res, r.Expect)
	if len(r.Expect) == 0 && !res.Interrupted && len(res.Cells) > 0 {
		eff = res.Verdict
	}
	h := htmlPage{Page: p, RunID: res.ID, Verdict: strings.ToUpper(string(eff)), VerdictClass: VerdictClass(string(eff)),
		VerdictLine: VerdictLine(eff, res.Verdict), Partial: r.Partial, Interrupted: res.Interrupted,
		Command: res.Command, Generated: now.UTC().Format("2006-01-02 15:04:05 UTC")}
	if res.Interrupted {
		h.VerdictLine = "The run was interrupted (exit code 130); the cells below are what it finished."
	}
	for _, e := range r.Expect {
		h.Expected = append(h.Expected, e.String())
	}
	for _, e := range p.Unused {
		h.UnusedText = append(h.UnusedText, e.String())
	}
	h.ReportCommand = "chaos report " + shellArg(r.Dir)
	h.Matrix = buildMatrix(p)
	for i, c := range r.Cells {
		h.Cells = append(h.Cells, buildCell(p, c, p.Judged[i], p.Labels[i]))
	}
	h.ColHeads = len(h.Cells) == 2
	for _, c := range h.Cells {
		if len(c.lane) > 0 {
			h.TimelineLead += " " + laneLead
			break
		}
	}
	h.Timelines = timelines(h.Cells, p.ChartKinds, p.Cols)
	for _, f := range []string{record.ResultFile, record.SpecFile, JUnitFile} {
		h.RunFiles = append(h.RunFiles, FileLink(r.Dir, f, f))
	}
	return h
}

func anchor(name string) string {
	return "cell-" + strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '-'
	}, name)
}

// FileLink links rel (slash-separated, relative to dir) when it exists.
func FileLink(dir, rel, text string) Link {
	if exists(filepath.Join(dir, filepath.FromSlash(rel))) {
		return Link{Text: text, Href: hrefPath(rel)}
	}
	return Link{Text: text, Note: "missing"}
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

// params are the generic parameters of a run: what every workload's spec
// holds.
func params(r *Run) []Param {
	s := r.Result.Spec
	p := []Param{
		{"run", r.Result.ID},
		{"workload", s.Workload},
		{"runtime", orDefault(r.Result.Runtime, s.Runtime)},
		{"seed", fmt.Sprint(r.Result.Seed)},
		{"time limit per cell", s.TimeLimit.String()},
		{"Direct Get", JoinOnOff(s.DirectGet)},
		{"nemeses", strings.Join(s.Nemeses, " | ")},
		{"nemesis interval", s.NemesisInterval.String()},
		{"nats-server", strings.Join(s.ServerVersions, ", ")},
		{"nats.go (client)", r.ClientVersion + " (" + r.ClientVersionSource + ")"},
		{"cluster", s.Cluster.Words()},
		{"recovery timeout / check timeout", fmt.Sprintf("%s / %s", s.RecoveryTimeout, s.CheckTimeout)},
	}
	if s.Cluster.SyncInterval != "" {
		p = append(p, Param{"sync interval", s.Cluster.SyncInterval})
	}
	if x := s.Cluster.ExternalSummary(); x != "" {
		p = append(p, Param{"external cluster", x})
	}
	if s.Shard != nil {
		p = append(p, Param{"shard", fmt.Sprintf("%s: %d of the matrix's %d cells and runs (chaos report --merge joins the shards)",
			s.Shard, len(s.Cells()), len(s.AllCells()))})
	}
	if st := StartedParam(r); st.V != "" {
		p = append(p, st)
	}
	return p
}

// StartedParam is when the run started, V empty when it did not record it.
func StartedParam(r *Run) Param {
	if r.Result.StartedAt.IsZero() {
		return Param{K: "started"}
	}
	return Param{"started", r.Result.StartedAt.UTC().Format("2006-01-02 15:04:05 UTC")}
}

// JoinOnOff writes a list of settings: "on, off".
func JoinOnOff(bs []bool) string {
	var out []string
	for _, b := range bs {
		out = append(out, OnOff(b))
	}
	return strings.Join(out, ", ")
}
