package reports

import (
	"fmt"
	"html"
	"html/template"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/record"
)

// runBlocks are the run-wide results every workload may have: checks
// across cells, the summary across --runs, and what --bisect found.
func runBlocks(res record.Result) []Block {
	var out []Block
	if len(res.Checks) > 0 {
		var rows [][]string
		for _, c := range res.Checks {
			rows = append(rows, []string{c.Name, string(c.Verdict), c.Summary})
		}
		out = append(out, Block{ID: "across-cells", Nav: "Across cells", Title: "Checks across cells",
			Lead:  "Judged from every cell's stored files together (chaos check on the run folder repeats them).",
			Chart: htmlTable([]string{"check", "verdict", "what it found"}, rows)})
	}
	if len(res.Repeats) > 0 {
		var rows [][]string
		for _, s := range res.Repeats {
			first, rerun := "", ""
			if f := s.FirstFailure; f != nil {
				first, rerun = fmt.Sprintf("run %d, seed %d", f.Repeat, f.Seed), f.Rerun
			}
			rows = append(rows, []string{s.Cell, s.ServerVersion, fmt.Sprintf("%d of %d", s.Failed, s.Runs),
				fmt.Sprintf("%.0f %%", 100*s.Rate), fmt.Sprintf("%d / %d", s.Unknown, s.Errors), first, rerun})
		}
		out = append(out, Block{ID: "across-runs", Nav: "Across runs", Title: "Failure rate across runs",
			Lead:  "Each cell was run --runs times, with seeds derived from --seed (or the same seed). A run fails when it finds an anomaly.",
			Chart: htmlTable([]string{"cell", "nats-server", "runs with an anomaly", "rate", "unknown / harness errors", "first failure", "rerun it"}, rows)})
	}
	if b := res.Bisect; b != nil {
		var rows [][]string
		for _, p := range b.Probes {
			rows = append(rows, []string{p.ServerVersion, fmt.Sprintf("%d of %d", p.Failed, p.Runs), fmt.Sprintf("%.0f %%", 100*p.Rate)})
		}
		out = append(out, Block{ID: "bisect", Nav: "Bisect", Title: "Failure rate by release (--bisect)",
			Lead: b.Detail + ".", Chart: htmlTable([]string{"release (in the order probed)", "runs with an anomaly", "rate"}, rows)})
	}
	return out
}

// htmlTable is a small escaped table of plain values for a block.
func htmlTable(head []string, rows [][]string) template.HTML {
	tds := make([][]Td, len(rows))
	for i, r := range rows {
		for _, v := range r {
			tds[i] = append(tds[i], Td{Text: v})
		}
	}
	return ListTable("", head, tds)
}

// Td is one value of a ListTable, escaped: its CSS class ("num",
// "detail", ClassBad, ...), and Code for text shown as code, a line each.
type Td struct {
	Text, Class string
	Code        bool
}

// ListTable is a small escaped table in the page's list style, with class
// added to the table's when given.
func ListTable(class string, head []string, rows [][]Td) template.HTML {
	var b strings.Builder
	fmt.Fprintf(&b, `<table class="%s"><thead><tr>`, strings.TrimSpace("list "+html.EscapeString(class)))
	for _, h := range head {
		fmt.Fprintf(&b, "<th>%s</th>", html.EscapeString(h))
	}
	b.WriteString("</tr></thead><tbody>")
	for _, r := range rows {
		b.WriteString("<tr>")
		for _, v := range r {
			text := html.EscapeString(v.Text)
			if v.Code {
				text = "<code>" + strings.ReplaceAll(text, "\n", "</code><br><code>") + "</code>"
			}
			if v.Class != "" {
				fmt.Fprintf(&b, `<td class="%s">%s</td>`, html.EscapeString(v.Class), text)
			} else {
				fmt.Fprintf(&b, "<td>%s</td>", text)
			}
		}
		b.WriteString("</tr>")
	}
	b.WriteString("</tbody></table>")
	return template.HTML(b.String()) // every value above is escaped
}
