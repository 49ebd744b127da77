package reports

import (
	"embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/run"
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
	HeadlineParts                                       []string
	Expected                                            []string
	Unused                                              []string
	Partial, Interrupted, DirectGetBoth, ExplainKV      bool
	Matrix                                              matrix
	Staleness                                           template.HTML
	NoStale                                             bool
	Timelines                                           []timelineRow
	Cols                                                int
	Cells                                               []cellView
	Params                                              []kv
	Command, ReportCommand, Generated                   string
	RunFiles                                            []link
}

// timelineRow is one kind of chart, one per cell side by side.
type timelineRow struct {
	Title   string
	Charts  []template.HTML
	Missing []string // cells without this chart, when charts stack
}

type matrix struct {
	Head []cellHead
	Rows []matrixRow
}

type cellHead struct {
	Anchor, Label, Verdict, Class, Color string
}

type matrixRow struct {
	Label, Hint string
	Group       bool
	Vals        []matrixVal
}

type matrixVal struct {
	Text, Class, Href string
}

type cellView struct {
	Anchor, Label, Short, Verdict, Class, Sentence, Error, Reproduce string
	Expected                                                         []string
	Facts                                                            []kv
	ChartNote                                                        string
	charts                                                           map[string]*TimeChart
	Faults                                                           []faultRow
	Recovery                                                         string
	Checks                                                           []checkRow
	Files, Logs, Configs, Porcupine                                  []link
}

type faultRow struct {
	Fault, Targets, From, To, Inject, Heal, State, StateClass, Detail string
}

type checkRow struct {
	Name, Verdict, Class, Summary, Reason, Note string
	Examples                                    []string
	More                                        int
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
		VerdictLine: VerdictLine(eff), Headline: Headline(res), HeadlineParts: HeadlineParts(res), Partial: r.Partial, Interrupted: res.Interrupted,
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

	labels := ShortLabels(res.Cells)
	sums := make([]Summary, len(res.Cells))
	for i, c := range res.Cells {
		sums[i] = Summarize(c)
	}
	p.Matrix = buildMatrix(r, judged, labels, sums)
	if anyStale(sums) {
		p.Staleness = stalenessChart(labels, sums).SVG()
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
	if len(p.Cells) == 2 {
		p.Cols = 2
	}
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

func buildMatrix(r *Run, judged []JudgedCell, labels []string, sums []Summary) matrix {
	var m matrix
	for i, c := range r.Result.Cells {
		v := string(judged[i].Verdict)
		m.Head = append(m.Head, cellHead{Anchor: anchor(c.Name), Label: labels[i], Verdict: verdictWord(c.Verdict, judged[i]),
			Class: verdictClass(v), Color: seriesColors[i%len(seriesColors)]})
	}
	row := func(label, hint string, f func(i int, c run.CellResult, s Summary) matrixVal) {
		mr := matrixRow{Label: label, Hint: hint}
		for i, c := range r.Result.Cells {
			mr.Vals = append(mr.Vals, f(i, c, sums[i]))
		}
		m.Rows = append(m.Rows, mr)
	}
	group := func(label string) { m.Rows = append(m.Rows, matrixRow{Label: label, Group: true}) }
	plain := func(s string) matrixVal { return matrixVal{Text: s} }
	count := func(n int, badIfPositive bool) matrixVal {
		v := matrixVal{Text: fmtCount(n)}
		if badIfPositive && n > 0 {
			v.Class = "bad"
		} else if badIfPositive {
			v.Class = "ok"
		}
		return v
	}
	ran := func(s Summary) bool { return s.Checks > 0 }
	na := matrixVal{Text: "–", Class: "na"}

	group("Setup")
	row("Direct Get", "followers answer reads when on (the KV default)", func(_ int, c run.CellResult, _ Summary) matrixVal {
		return plain(onOff(c.DirectGet))
	})
	row("nats-server", "", func(_ int, c run.CellResult, _ Summary) matrixVal { return plain(c.ServerVersion) })
	row("Faults", "the nemesis: faults injected during the workload", func(_ int, c run.CellResult, _ Summary) matrixVal {
		if c.Nemesis == "" || c.Nemesis == "none" {
			return plain("none")
		}
		inj, ver := 0, 0
		for _, w := range c.Faults {
			if w.Injected {
				inj++
			}
			if w.Verified {
				ver++
			}
		}
		v := plain(fmt.Sprintf("%s: %d injected, %d verified", c.Nemesis, inj, ver))
		if inj < len(c.Faults) || ver < inj {
			v.Class = "unk"
		}
		return v
	})
	row("Operations", "all client ops, and their rate during the workload", func(_ int, c run.CellResult, _ Summary) matrixVal {
		if c.Ops.Total == 0 {
			return na
		}
		return plain(fmt.Sprintf("%s (%s/s)", fmtCount(c.Ops.Total), fmtCount(int(c.Ops.OpsPerSec+0.5))))
	})

	group("Reads")
	row("Stale reads", "gets that returned an older revision than one already acknowledged", func(_ int, _ run.CellResult, s Summary) matrixVal {
		if !s.HasStale {
			return na
		}
		v := count(s.Stale, true)
		v.Text = fmt.Sprintf("%s of %s (%s)", fmtCount(s.Stale), fmtCount(s.Gets), fmtPct(s.Stale, s.Gets))
		return v
	})
	row("Staleness p50 / p99 / max", "how long the newer revision had been acknowledged", func(_ int, _ run.CellResult, s Summary) matrixVal {
		if s.Stale == 0 {
			return na
		}
		return plain(fmt.Sprintf("%s / %s / %s", fmtMs(s.StaleP50), fmtMs(s.StaleP99), fmtMs(s.StaleMax)))
	})
	row("Read-your-writes / monotonic violations", "a client reading older than it wrote / than it already read", func(_ int, _ run.CellResult, s Summary) matrixVal {
		if s.Check(ckSession) == nil {
			return na
		}
		v := count(s.RYW+s.Mono, true)
		v.Text = fmtCount(s.RYW) + " / " + fmtCount(s.Mono)
		return v
	})

	group("Updates")
	row("Updates", "kv.Update calls", func(_ int, c run.CellResult, _ Summary) matrixVal {
		if c.Ops.Total == 0 {
			return na
		}
		return plain(fmtCount(c.Ops.ByType["update"]))
	})
	row("Rejected: wrong last sequence", "rejections with 10071 or 10164", func(_ int, _ run.CellResult, s Summary) matrixVal {
		if s.Check(ckAttribution) == nil {
			return na
		}
		return plain(fmt.Sprintf("%s (%s of updates)", fmtCount(s.Rejections), fmtPct(s.Rejections, s.Updates)))
	})
	row("… because of a stale read", "the get that supplied the expected revision was stale", func(_ int, _ run.CellResult, s Summary) matrixVal {
		if s.Check(ckAttribution) == nil {
			return na
		}
		return count(s.RejStale, true)
	})
	row("… a concurrent write", "another write raced: a correct rejection", func(_ int, _ run.CellResult, s Summary) matrixVal {
		if s.Check(ckAttribution) == nil {
			return na
		}
		return plain(fmtCount(s.RejConc))
	})
	row("… nothing else wrote the key", "spurious: the server rejected a current revision", func(_ int, _ run.CellResult, s Summary) matrixVal {
		if s.Check(ckAttribution) == nil {
			return na
		}
		v := count(s.RejSpur, true)
		if len(s.SpurCodes) > 0 {
			v.Text += " (" + strings.Join(s.SpurCodes, ", ") + ")"
		}
		return v
	})
	row("Indeterminate ops", "timeouts: the write may or may not have happened", func(_ int, c run.CellResult, s Summary) matrixVal {
		if !ran(s) {
			return na
		}
		return plain(fmtCount(c.Ops.Indeterminate))
	})

	group("Data")
	row("Stream integrity", "acknowledged writes kept, nothing unexpected stored", func(_ int, _ run.CellResult, s Summary) matrixVal {
		in := s.Check(ckIntegrity)
		if in == nil {
			return na
		}
		if len(s.Integrity) == 0 {
			v := matrixVal{Text: "all " + fmtCount(in.Counts["acked_writes"]) + " acknowledged writes stored", Class: "ok"}
			if in.Verdict != checker.Valid {
				v.Text, v.Class = string(in.Verdict)+": "+firstLine(in.Reason), verdictClass(string(in.Verdict))
			}
			return v
		}
		return matrixVal{Text: strings.Join(s.Integrity, ", "), Class: "bad"}
	})
	row("Linearizable keys", "porcupine, per key", func(i int, _ run.CellResult, s Summary) matrixVal {
		lin := s.Check(ckLinear)
		if lin == nil {
			return na
		}
		unk := lin.Counts["keys_unknown"]
		v := matrixVal{Text: fmt.Sprintf("%d of %d", s.Keys-s.KeysBad-unk, s.Keys), Class: verdictClass(string(lin.Verdict))}
		if unk > 0 {
			v.Text += fmt.Sprintf(" (%d undecided)", unk)
		}
		if files := relFiles(r.Dir, r.Cells[i].Rel, "porcupine/*.html"); r.Cells[i].Rel != "" && len(files) > 0 {
			v.Href = hrefPath(files[0])
			v.Text += ", see porcupine"
		}
		return v
	})
	row("Recovery", "the cluster after the final heal", func(_ int, c run.CellResult, s Summary) matrixVal {
		if c.Recovery == nil {
			return na
		}
		if c.Recovery.Recovered {
			return matrixVal{Text: "recovered in " + fmtSec(c.Recovery.Took), Class: "ok"}
		}
		return matrixVal{Text: "did not recover", Class: "bad"}
	})

	group("Checks")
	names := checkerNames(r.Result.Cells)
	for _, name := range names {
		row(name, "", func(i int, _ run.CellResult, _ Summary) matrixVal {
			for _, j := range judged[i].Checks {
				if j.Name == name {
					t := string(j.Verdict)
					if j.Expected != "" {
						t += " (expected)"
					}
					return matrixVal{Text: t, Class: verdictClass(string(j.Effective)), Href: "#" + anchor(judged[i].Name) + "-checks"}
				}
			}
			return na
		})
	}
	return m
}

func verdictWord(raw run.Verdict, j JudgedCell) string {
	if raw == run.Invalid && j.Verdict == run.Valid {
		return "invalid, as expected"
	}
	return string(raw)
}

func checkerNames(cells []run.CellResult) []string {
	seen := map[string]int{}
	var out []string
	for _, c := range cells {
		for i, r := range c.Checks {
			if _, ok := seen[r.Name]; !ok {
				seen[r.Name] = i
				out = append(out, r.Name)
			}
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return seen[out[a]] < seen[out[b]] })
	return out
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
	workload := c.Phases["workload"]
	xmax := timeAxis(c.Series, c.Faults, workload)
	bands, marks := faultBands(c.Faults), workloadMark(workload)
	v.charts = map[string]*TimeChart{}
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
	return v
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
	for _, kind := range []string{chThroughput, chLatency, chErrors, chMemory} {
		var cs []*TimeChart
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
			l, h := ch.YRange()
			hi, lo, xmax = math.Max(hi, h), math.Min(lo, l), math.Max(xmax, ch.XMax)
		}
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
				ch = &TimeChart{Title: kind, Empty: why}
			} else {
				ch.YMax, ch.XMax = hi, xmax
				if ch.YLog {
					ch.YMin = lo
				}
			}
			if cols == 1 && len(cells) > 1 {
				ch.Title = c.Short + ": " + ch.Title
				ch.H = 220
			}
			ch.W = w
			row.Charts = append(row.Charts, ch.SVG())
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
	if c.KV.Bucket != "" {
		f = append(f, kv{"bucket", kvWords(c.KV)})
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

func params(r *Run) []kv {
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
		{"cluster", fmt.Sprintf("%d nodes, route ping %s", s.Cluster.Nodes, s.Cluster.RoutePingInterval)},
		{"recovery timeout / check timeout", fmt.Sprintf("%s / %s", s.RecoveryTimeout, s.CheckTimeout)},
	}
	for i, o := range s.KV {
		name := "bucket"
		if len(s.KV) > 1 {
			name = fmt.Sprintf("bucket, setting %d", i+1)
		}
		p = append(p, kv{name, kvWords(o)})
	}
	if s.Cluster.SyncInterval != "" {
		p = append(p, kv{"sync interval", s.Cluster.SyncInterval})
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
