package reports

import (
	"fmt"
	"sort"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/run"
)

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

func buildMatrix(r *Run, judged []run.JudgedCell, labels []string, sums []Summary) matrix {
	var m matrix
	for i, c := range r.Result.Cells {
		v := string(judged[i].Verdict)
		m.Head = append(m.Head, cellHead{Anchor: anchor(c.Name), Label: labels[i], Verdict: verdictWord(c.Verdict, judged[i]),
			Class: VerdictClass(v), Color: seriesColors[i%len(seriesColors)]})
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
		v := matrixVal{Text: FormatCount(n)}
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
		return plain(OnOff(c.DirectGet))
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
		return plain(fmt.Sprintf("%s (%s/s)", FormatCount(c.Ops.Total), FormatCount(int(c.Ops.OpsPerSec+0.5))))
	})

	group("Reads")
	row("Stale reads", "gets that returned an older revision than one already acknowledged", func(_ int, _ run.CellResult, s Summary) matrixVal {
		if !s.HasStale {
			return na
		}
		v := count(s.Stale, true)
		v.Text = fmt.Sprintf("%s of %s (%s)", FormatCount(s.Stale), FormatCount(s.Gets), FormatPercent(s.Stale, s.Gets))
		return v
	})
	row("Staleness p50 / p99 / max", "how long the newer revision had been acknowledged", func(_ int, _ run.CellResult, s Summary) matrixVal {
		if s.Stale == 0 {
			return na
		}
		return plain(fmt.Sprintf("%s / %s / %s", FormatMs(s.StaleP50), FormatMs(s.StaleP99), FormatMs(s.StaleMax)))
	})
	row("Read-your-writes / monotonic violations", "a client reading older than it wrote / than it already read", func(_ int, _ run.CellResult, s Summary) matrixVal {
		if s.Check(ckSession) == nil {
			return na
		}
		v := count(s.RYW+s.Mono, true)
		v.Text = FormatCount(s.RYW) + " / " + FormatCount(s.Mono)
		return v
	})

	group("Updates")
	row("Updates", "kv.Update calls", func(_ int, c run.CellResult, _ Summary) matrixVal {
		if c.Ops.Total == 0 {
			return na
		}
		return plain(FormatCount(c.Ops.ByType["update"]))
	})
	row("Rejected: wrong last sequence", "rejections with 10071 or 10164", func(_ int, _ run.CellResult, s Summary) matrixVal {
		if s.Check(ckAttribution) == nil {
			return na
		}
		return plain(fmt.Sprintf("%s (%s of updates)", FormatCount(s.Rejections), FormatPercent(s.Rejections, s.Updates)))
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
		return plain(FormatCount(s.RejConc))
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
		return plain(FormatCount(c.Ops.Indeterminate))
	})

	group("Data")
	row("Stream integrity", "acknowledged writes kept, nothing unexpected stored", func(_ int, _ run.CellResult, s Summary) matrixVal {
		in := s.Check(ckIntegrity)
		if in == nil {
			return na
		}
		if len(s.Integrity) == 0 {
			v := matrixVal{Text: "all " + FormatCount(in.Counts["acked_writes"]) + " acknowledged writes stored", Class: "ok"}
			if in.Verdict != checker.Valid {
				v.Text, v.Class = string(in.Verdict)+": "+FirstLine(in.Reason), VerdictClass(string(in.Verdict))
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
		v := matrixVal{Text: fmt.Sprintf("%d of %d", s.Keys-s.KeysBad-unk, s.Keys), Class: VerdictClass(string(lin.Verdict))}
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
			return matrixVal{Text: "recovered in " + FormatSeconds(c.Recovery.Took), Class: "ok"}
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
					return matrixVal{Text: t, Class: VerdictClass(string(j.Effective)), Href: "#" + anchor(judged[i].Name) + "-checks"}
				}
			}
			return na
		})
	}
	return m
}

func verdictWord(raw run.Verdict, j run.JudgedCell) string {
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
