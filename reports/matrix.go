package reports

import (
	"fmt"
	"sort"

	"github.com/jetstream-chaos/jetstream-chaos/record"
)

// matrix is the cells table: a column a cell.
type matrix struct {
	Head []cellHead
	Rows []MatrixRow
}

type cellHead struct {
	Anchor, Label, Verdict, Class, Color string
}

// buildMatrix is the cells table of a page: the head and Table.
func buildMatrix(p *Page) matrix {
	var m matrix
	for i, c := range p.Run.Result.Cells {
		m.Head = append(m.Head, cellHead{Anchor: anchor(c.Name), Label: p.Labels[i], Verdict: VerdictWord(c.Verdict, p.Judged[i]),
			Class: VerdictClass(string(p.Judged[i].Verdict)), Color: SeriesColor(i)})
	}
	m.Rows = p.Table()
	return m
}

// Table is the rows of the cells table: the page's Rows, then a row a
// check, each cell's verdict linked to its checks.
func (p *Page) Table() []MatrixRow {
	rows := append(append([]MatrixRow(nil), p.Rows...), GroupRow("Checks"))
	for _, name := range checkerNames(p.Run.Result.Cells) {
		rows = append(rows, p.Row(name, p.CheckHints[name], func(i int, _ *Cell) MatrixVal {
			for _, j := range p.Judged[i].Checks {
				if j.Name == name {
					t := string(j.Verdict)
					if j.Expected != "" {
						t += " (expected)"
					}
					return MatrixVal{Text: t, Class: VerdictClass(string(j.Effective)), Href: "#" + anchor(p.Judged[i].Name) + "-checks"}
				}
			}
			return NA
		}))
	}
	return rows
}

// Row is a row of the cells table whose values f reads from each cell.
func (p *Page) Row(label, hint string, f func(i int, c *Cell) MatrixVal) MatrixRow {
	mr := MatrixRow{Label: label, Hint: hint}
	for i, c := range p.Run.Cells {
		mr.Vals = append(mr.Vals, f(i, c))
	}
	return mr
}

// DirectGetRow says whether each cell had Direct Get on.
func (p *Page) DirectGetRow(hint string) MatrixRow {
	return p.Row("Direct Get", hint, func(_ int, c *Cell) MatrixVal { return MatrixVal{Text: OnOff(c.DirectGet)} })
}

// VersionRow is each cell's nats-server version.
func (p *Page) VersionRow() MatrixRow {
	return p.Row("nats-server", "", func(_ int, c *Cell) MatrixVal { return MatrixVal{Text: c.ServerVersion} })
}

// FaultsRow says which faults the nemesis injected, and how many it
// verified.
func (p *Page) FaultsRow() MatrixRow {
	return p.Row("Faults", "the nemesis: faults injected during the workload", func(_ int, c *Cell) MatrixVal {
		if c.Nemesis == "" || c.Nemesis == "none" {
			return MatrixVal{Text: "none"}
		}
		inj, ver, never := 0, 0, 0
		for _, w := range c.Faults {
			if w.Injected {
				inj++
			}
			if w.Verified {
				ver++
			}
			if w.NeverFired() {
				never++
			}
		}
		v := MatrixVal{Text: fmt.Sprintf("%s: %d injected, %d verified", c.Nemesis, inj, ver)}
		if never > 0 {
			v.Text += fmt.Sprintf(", %s never fired", Plural(never, "trigger", "triggers"))
		}
		if inj < len(c.Faults) || ver < inj {
			v.Class = ClassUnknown
		}
		return v
	})
}

// OpsRow counts each cell's client operations and their rate.
func (p *Page) OpsRow() MatrixRow {
	return p.Row("Operations", "all client ops, and their rate during the workload", func(_ int, c *Cell) MatrixVal {
		if c.Ops.Total == 0 {
			return NA
		}
		return MatrixVal{Text: fmt.Sprintf("%s (%s/s)", FormatCount(c.Ops.Total), FormatCount(int(c.Ops.OpsPerSec+0.5)))}
	})
}

// RecoveryRow says whether each cluster recovered after the final heal.
func (p *Page) RecoveryRow() MatrixRow {
	return p.Row("Recovery", "the cluster after the final heal", func(_ int, c *Cell) MatrixVal {
		if c.Recovery == nil {
			return NA
		}
		if c.Recovery.Recovered {
			return MatrixVal{Text: "recovered in " + FormatSeconds(c.Recovery.Took), Class: ClassOK}
		}
		return MatrixVal{Text: "did not recover", Class: ClassBad}
	})
}

// VerdictWord is a cell's verdict as its heading says it: "invalid, as
// expected" when expectations excused it.
func VerdictWord(raw record.Verdict, j record.JudgedCell) string {
	if raw == record.Invalid && j.Verdict == record.Valid {
		return "invalid, as expected"
	}
	return string(raw)
}

func checkerNames(cells []record.CellResult) []string {
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
