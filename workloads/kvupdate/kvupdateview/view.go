package kvupdateview

import (
	"encoding/json"
	"fmt"
	"html/template"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/checker/kvcheck"
	"github.com/jetstream-chaos/jetstream-chaos/record"
	"github.com/jetstream-chaos/jetstream-chaos/reports"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/kvupdate"
)

// kvView renders a kv-update run: the stale reads and the rejections they
// cause, in the headline, the cells table and a staleness chart.
type kvView struct{}

func init() { reports.RegisterView("kv-update", kvView{}) }

// Load reads nothing: a kv-update cell's files (history.jsonl,
// stream.jsonl) are the pipeline's, which the generic page reads.
func (kvView) Load(string, *reports.Cell) error { return nil }

func (kvView) Page(p *reports.Page) {
	r := p.Run
	cells := r.Result.Cells
	sums := make([]Summary, len(cells))
	sentences := make([]string, len(cells))
	for i, c := range cells {
		sums[i] = Summarize(c)
		sentences[i] = sums[i].Sentence()
	}
	p.Labels = reports.ShortLabels(cells, workloadTags(cells))
	p.Headline = reports.HeadlineOf(r.Result, p.Judged, p.Labels, sentences, "no stale reads and no other anomaly")
	p.Kicker = "NATS JetStream KV under faults"
	p.Intro = kvIntro
	p.Rows = kvRows(p, sums)
	if b, ok := stalenessBlock(p.Labels, sums); ok {
		p.Blocks = append(p.Blocks, b)
	}
	var buckets []reports.Param
	kvs := specSettings(r.Result.Spec)
	for i, o := range kvs {
		name := "bucket"
		if len(kvs) > 1 {
			name = fmt.Sprintf("bucket, setting %d", i+1)
		}
		buckets = append(buckets, reports.Param{K: name, V: kvWords(o)})
	}
	p.Params = reports.InsertParams(p.Params, "recovery timeout / check timeout", buckets...)
}

func (kvView) Cell(_ *reports.Page, c *reports.Cell, s *reports.CellSection) {
	s.Sentence = Summarize(c.CellResult).Sentence()
	if o := cellSettings(c.CellResult); o.Bucket != "" {
		at := "nemesis"
		if c.Runtime != "" {
			at = "runtime"
		}
		s.Facts = reports.InsertParams(s.Facts, at, reports.Param{K: "bucket", V: kvWords(o)})
	}
}

func (kvView) JUnit(*reports.Run, *reports.Cell) reports.JUnitExtra { return reports.JUnitExtra{} }

var kvIntro = template.HTML(`
<section id="explain" class="explain">
  <h2>What was tested</h2>
  <p>A 3-node NATS JetStream cluster holds a replicated key-value bucket. Each key has one writer that loops:
  <em>get</em> the key, then <em>update</em> it with the revision it just read. Every operation is recorded and checked afterwards.</p>
  <ul>
    <li><strong>Direct Get</strong> lets any replica, not only the leader, answer a get. It is on by default for KV buckets.</li>
    <li>A <strong>stale read</strong> is a get that began after a newer revision had been acknowledged, yet returned an older one.</li>
    <li>After a stale read the writer's update carries an old revision, so the server <strong>rejects it</strong> with
    <em>wrong last sequence</em> (error 10071): the failure users see, although nobody else wrote the key.</li>
  </ul>
</section>`)

// stalenessBlock is the staleness chart under the cells table, or the
// line that says there were no stale reads; none when no cell checked for
// them.
func stalenessBlock(labels []string, sums []Summary) (reports.Block, bool) {
	b := reports.Block{ID: "staleness", Nav: "Staleness", Title: "Staleness of the stale reads"}
	checked := false
	for _, s := range sums {
		if s.Stale > 0 {
			b.Lead = "For each stale read: how long before the get the newer revision had already been acknowledged. Cells without stale reads have no bars."
			b.Chart = stalenessChart(labels, sums).HTML()
			return b, true
		}
		checked = checked || s.HasStale
	}
	b.Lead = "No stale reads in any cell: every get returned the latest acknowledged revision or a newer one."
	return b, checked
}

// stalenessChart compares the staleness distributions of the cells: one
// bar per cell in each staleness bucket, its count above it. Empty buckets
// past the last non-empty one are dropped.
func stalenessChart(labels []string, sums []Summary) *reports.Chart {
	const title = "How stale were the stale reads? (time since the newer revision was acknowledged)"
	last := -1
	var cats []string
	for _, s := range sums {
		for i, b := range s.StaleHist {
			if b.Count > 0 {
				last = max(last, i)
			}
			if len(cats) <= i {
				cats = append(cats, b.Label)
			}
		}
	}
	if last < 0 {
		return &reports.Chart{Title: title, W: 1100, H: 300, Empty: "no stale reads in any cell"}
	}
	cats = cats[:min(len(cats), max(last+2, 6))]
	c := reports.NewBarChart(title, "staleness", "stale reads", cats)
	for i, s := range sums {
		if !s.HasStale {
			continue
		}
		vals := make([]float64, len(cats))
		for j := range vals {
			if j < len(s.StaleHist) {
				vals[j] = float64(s.StaleHist[j].Count)
			}
		}
		c.Bars(fmt.Sprintf("%s (%s)", labels[i], reports.FormatCount(s.Stale)), reports.SeriesColor(i), vals)
	}
	return c
}

// workloadTags names what sets each cell's workload apart: "10 keys,
// 20 clients"; empty when every cell runs the same.
func workloadTags(cells []record.CellResult) []string {
	fields := []func(o kvupdate.Options) string{
		func(o kvupdate.Options) string { return fmt.Sprintf("%d keys", o.Keys) },
		func(o kvupdate.Options) string { return fmt.Sprintf("%d clients", o.Clients) },
		func(o kvupdate.Options) string { return string(o.Pattern) },
		func(o kvupdate.Options) string { return fmt.Sprintf("R%d", o.Replicas) },
		func(o kvupdate.Options) string {
			if o.Rate == 0 {
				return "unthrottled"
			}
			return fmt.Sprintf("%g ops/s", o.Rate)
		},
		func(o kvupdate.Options) string { return "history " + historyOf(o).String() },
		func(o kvupdate.Options) string { return mixOf(o).String() },
	}
	opts := make([]kvupdate.Options, len(cells))
	for i, c := range cells {
		opts[i] = cellSettings(c)
	}
	tags := make([]string, len(cells))
	for _, f := range fields {
		seen := map[string]bool{}
		for _, o := range opts {
			seen[f(o)] = true
		}
		if len(seen) < 2 {
			continue
		}
		for i, o := range opts {
			if tags[i] != "" {
				tags[i] += ", "
			}
			tags[i] += f(o)
		}
	}
	return tags
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
	return s + ", history " + historyOf(o).String() + ", " + mixOf(o).String()
}

// The settings are the stored JSON's spec.settings and each cell's
// settings; reports' decoders move older shapes (spec.kv, a cell's kv and
// workload) there.

// specSettings are the run's kv-update settings, one a cell of the matrix.
func specSettings(spec record.Spec) []kvupdate.Options {
	var out []kvupdate.Options
	for _, raw := range spec.Settings {
		var o kvupdate.Options
		if json.Unmarshal(raw, &o) == nil {
			out = append(out, o)
		}
	}
	return out
}

// cellSettings is the kv-update setting a cell ran (zero when unknown).
func cellSettings(c record.CellResult) kvupdate.Options {
	var o kvupdate.Options
	_ = json.Unmarshal(c.Settings, &o)
	return o
}

// kvRows are the cells table of a kv-update run: setup, reads, updates
// and data.
func kvRows(p *reports.Page, sums []Summary) []reports.MatrixRow {
	row := func(label, hint string, f func(c *reports.Cell, s Summary) reports.MatrixVal) reports.MatrixRow {
		return p.Row(label, hint, func(i int, c *reports.Cell) reports.MatrixVal { return f(c, sums[i]) })
	}
	count := func(n int) reports.MatrixVal {
		if n > 0 {
			return reports.MatrixVal{Text: reports.FormatCount(n), Class: reports.ClassBad}
		}
		return reports.MatrixVal{Text: reports.FormatCount(n), Class: reports.ClassOK}
	}
	rows := []reports.MatrixRow{reports.GroupRow("Setup"), p.DirectGetRow("followers answer reads when on (the KV default)"), p.VersionRow()}
	rows = append(rows, bucketRows(row)...)
	rows = append(rows, p.FaultsRow(), p.OpsRow(), reports.GroupRow("Reads"),
		row("Stale reads", "gets that returned an older revision than one already acknowledged", func(_ *reports.Cell, s Summary) reports.MatrixVal {
			if !s.HasStale {
				return reports.NA
			}
			v := count(s.Stale)
			v.Text = fmt.Sprintf("%s of %s (%s)", reports.FormatCount(s.Stale), reports.FormatCount(s.Gets), reports.FormatPercent(s.Stale, s.Gets))
			return v
		}),
		row("Staleness p50 / p99 / max", "how long the newer revision had been acknowledged", func(_ *reports.Cell, s Summary) reports.MatrixVal {
			if s.Stale == 0 {
				return reports.NA
			}
			return reports.MatrixVal{Text: fmt.Sprintf("%s / %s / %s", reports.FormatMs(s.StaleP50), reports.FormatMs(s.StaleP99), reports.FormatMs(s.StaleMax))}
		}),
		row("Read-your-writes / monotonic violations", "a client reading older than it wrote / than it already read", func(_ *reports.Cell, s Summary) reports.MatrixVal {
			if s.Check(kvcheck.NameSession) == nil {
				return reports.NA
			}
			v := count(s.RYW + s.Mono)
			v.Text = reports.FormatCount(s.RYW) + " / " + reports.FormatCount(s.Mono)
			return v
		}))
	rows = append(rows, updateRows(row, count)...)
	return append(rows, dataRows(p, row)...)
}

type kvRow = func(label, hint string, f func(c *reports.Cell, s Summary) reports.MatrixVal) reports.MatrixRow

// updateRows count the updates and why they were rejected.
func updateRows(row kvRow, count func(int) reports.MatrixVal) []reports.MatrixRow {
	attributed := func(f func(s Summary) reports.MatrixVal) func(*reports.Cell, Summary) reports.MatrixVal {
		return func(_ *reports.Cell, s Summary) reports.MatrixVal {
			if s.Check(kvcheck.NameAttribution) == nil {
				return reports.NA
			}
			return f(s)
		}
	}
	return []reports.MatrixRow{reports.GroupRow("Updates"),
		row("Updates", "kv.Update calls", func(c *reports.Cell, _ Summary) reports.MatrixVal {
			if c.Ops.Total == 0 {
				return reports.NA
			}
			return reports.MatrixVal{Text: reports.FormatCount(c.Ops.ByType["update"])}
		}),
		row("Rejected: wrong last sequence", "rejections with 10071 or 10164", attributed(func(s Summary) reports.MatrixVal {
			return reports.MatrixVal{Text: fmt.Sprintf("%s (%s of updates)", reports.FormatCount(s.Rejections), reports.FormatPercent(s.Rejections, s.Updates))}
		})),
		row("… because of a stale read", "the get that supplied the expected revision was stale", attributed(func(s Summary) reports.MatrixVal {
			return count(s.RejStale)
		})),
		row("… a concurrent write", "another write raced: a correct rejection", attributed(func(s Summary) reports.MatrixVal {
			return reports.MatrixVal{Text: reports.FormatCount(s.RejConc)}
		})),
		row("… nothing else wrote the key", "spurious: the server rejected a current revision", attributed(func(s Summary) reports.MatrixVal {
			v := count(s.RejSpur)
			if len(s.SpurCodes) > 0 {
				v.Text += " (" + strings.Join(s.SpurCodes, ", ") + ")"
			}
			return v
		})),
		row("Indeterminate ops", "timeouts: the write may or may not have happened", func(c *reports.Cell, s Summary) reports.MatrixVal {
			if s.Checks == 0 {
				return reports.NA
			}
			return reports.MatrixVal{Text: reports.FormatCount(c.Ops.Indeterminate)}
		}),
	}
}

// dataRows say what the stream kept, whether each key was linearizable and
// whether the cluster recovered.
func dataRows(p *reports.Page, row kvRow) []reports.MatrixRow {
	return append([]reports.MatrixRow{reports.GroupRow("Data"),
		row("Stream integrity", "acknowledged writes kept, nothing unexpected stored", func(_ *reports.Cell, s Summary) reports.MatrixVal {
			in := s.Check(kvcheck.NameIntegrity)
			if in == nil {
				return reports.NA
			}
			if len(s.Integrity) == 0 {
				v := reports.MatrixVal{Text: "all " + reports.FormatCount(in.Counts[kvcheck.CountAckedWrites]) + " acknowledged writes stored", Class: reports.ClassOK}
				if in.Verdict != checker.Valid {
					v.Text, v.Class = string(in.Verdict)+": "+reports.FirstLine(in.Reason), reports.VerdictClass(string(in.Verdict))
				}
				return v
			}
			return reports.MatrixVal{Text: strings.Join(s.Integrity, ", "), Class: reports.ClassBad}
		}),
		row("Linearizable keys", "porcupine, per key", func(c *reports.Cell, s Summary) reports.MatrixVal {
			lin := s.Check(kvcheck.NameLinearizability)
			if lin == nil {
				return reports.NA
			}
			unk := lin.Counts[kvcheck.CountKeysUnknown]
			v := reports.MatrixVal{Text: fmt.Sprintf("%d of %d", s.Keys-s.KeysBad-unk, s.Keys), Class: reports.VerdictClass(string(lin.Verdict))}
			if unk > 0 {
				v.Text += fmt.Sprintf(" (%d undecided)", unk)
			}
			if files := p.Run.CellFiles(c, "porcupine/*.html"); len(files) > 0 {
				v.Href = reports.Href(files[0])
				v.Text += ", see porcupine"
			}
			return v
		}),
	}, append(storedRows(row), p.RecoveryRow())...)
}
