package releases

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Placeholder stands for the release in a scenario's command.
const Placeholder = "--server-version=<release>"

// Render writes the page of the ledger's rows: the same rows give the same
// bytes, whatever their order (no clock is read; the date said is the
// newest row's).
func Render(rows []Row) []byte {
	m := NewMatrix(rows)
	var b strings.Builder
	header(&b, m)
	if len(m.Rows) == 0 {
		b.WriteString("## The ledger is empty\n\n" +
			"No run has been added yet. Run scenarios across the release lines into a store, then rebuild this page:\n\n" +
			"```sh\ngo run ./cmd/chaos run --store store --server-version V1,V2,... --runs 3 ...   # a scenario's flags\n" +
			"make releases                                                          # or: go run ./cmd/chaos releases store\n```\n\n" +
			"For V1, V2, ...: the newest patch of each line (2.10, 2.11, 2.12, 2.14, 2.15) that " +
			"`go list -m -versions github.com/nats-io/nats-server/v2` lists, and the first and last affected release where known; " +
			"a range (`--server-version v2.14.9..v2.15.3`) runs every release in it.\n")
		return []byte(b.String())
	}
	summary(&b, m)
	lines(&b, m)
	for _, c := range m.Classes {
		classSection(&b, m, c)
	}
	cleanSection(&b, m)
	return []byte(b.String())
}

func header(b *strings.Builder, m Matrix) {
	b.WriteString("# Release matrix\n\n")
	b.WriteString("Every anomaly class jetstream-chaos's stored runs found, against every nats-server release they ran. " +
		"`make releases` (`chaos releases STORE...`) writes this page from `docs/releases.jsonl`, the ledger of every run of a cell " +
		"(one JSON row each), after adding the runs of the stores it is given; do not edit it by hand.\n\n")
	if !m.Newest.IsZero() {
		fmt.Fprintf(b, "The ledger holds %d runs of %d scenarios on %d releases; its newest run started %s.\n\n",
			len(m.Rows), len(m.Groups), len(m.Releases), m.Newest.UTC().Format("2006-01-02"))
	}
	b.WriteString("How to read a rate: **k/n** (\"k of n\") is k runs of the scenario on the release that showed the anomaly, " +
		"out of n runs of it there that were judged (valid or invalid; unknown and harness errors count in neither). " +
		"0 of n is no proof of absence: an intermittent anomaly may want more runs (`--runs`). " +
		"\"–\": the scenario never ran on that release. A scenario is a run's command pinned to one cell " +
		"(its own `--direct-get` and `--nemesis`), without the release, the seed, the repeats, the store and `--expect`; " +
		"a run counts once per class, whatever else it showed.\n\n")
}

// summary is the table of classes against releases: each class over the
// scenarios that showed it anywhere, then the scenarios that showed none.
func summary(b *strings.Builder, m Matrix) {
	b.WriteString("## Summary\n\n| anomaly class | " + strings.Join(m.Releases, " | ") + " |\n|---|")
	b.WriteString(strings.Repeat("---|", len(m.Releases)) + "\n")
	row := func(label string, groups []Group, slug string) {
		cells := make([]string, len(m.Releases))
		for i, v := range m.Releases {
			cells[i] = rate(CountOf(groups, v, slug), "/")
		}
		fmt.Fprintf(b, "| %s | %s |\n", label, strings.Join(cells, " | "))
	}
	for _, c := range m.Classes {
		row(fmt.Sprintf("[%s](#%s) (`%s`)", esc(c.Title), anchor(c.Title), c.Slug), m.ShowedBy(c.Slug), c.Slug)
	}
	if clean := m.Clean(); len(clean) > 0 {
		row(fmt.Sprintf("[no anomaly](#scenarios-that-showed-no-anomaly) (%d scenarios)", len(clean)), clean, "")
	}
	b.WriteString("\n")
}

// rate is a count as "k/n" (sep "/") or "k of n", "–" without runs.
func rate(c Count, sep string) string {
	if c.Runs == 0 {
		return "–"
	}
	return strconv.Itoa(c.Showed) + sep + strconv.Itoa(c.Runs)
}

// lines says, for each release line, the newest release the ledger has
// and how many of its runs were judged.
func lines(b *strings.Builder, m Matrix) {
	b.WriteString("## Newest patch per release line\n\n" +
		"The newest release of each line the ledger has runs of; a line without one was not run. " +
		"Whether a newer patch exists is the module proxy's to say (`go list -m -versions github.com/nats-io/nats-server/v2`).\n\n" +
		"| line | newest release run | judged runs on it |\n|---|---|---|\n")
	for _, l := range Lines {
		v := m.NewestOn(l)
		if v == "" {
			fmt.Fprintf(b, "| %s | not run | – |\n", strings.TrimPrefix(l, "v"))
			continue
		}
		fmt.Fprintf(b, "| %s | %s | %d |\n", strings.TrimPrefix(l, "v"), v, CountOf(m.Groups, v, "").Runs)
	}
	var other []string
	for _, v := range m.Releases {
		if !slices.Contains(Lines, Line(v)) {
			other = append(other, v)
		}
	}
	if len(other) > 0 {
		fmt.Fprintf(b, "\nAlso run: %s.\n", strings.Join(other, ", "))
	}
	b.WriteString("\n")
}

// classSection is one class: each scenario that showed it, its rate per
// release, its seeds and dates, its newest finding and bisections.
func classSection(b *strings.Builder, m Matrix, c Class) {
	fmt.Fprintf(b, "## %s\n\n`%s`", esc(c.Title), c.Slug)
	if first, last := affected(m.ShowedBy(c.Slug), c.Slug); first != "" {
		fmt.Fprintf(b, ": first shown on %s, last on %s (of the releases run)", first, last)
	}
	b.WriteString(".\n\n")
	for i, g := range m.ShowedBy(c.Slug) {
		fmt.Fprintf(b, "### Scenario %d: %s\n\n", i+1, groupName(g))
		commandBlock(b, g)
		b.WriteString("| release | showed it | seeds | run dates |\n|---|---|---|---|\n")
		for _, v := range g.Releases() {
			rows := g.On(v)
			fmt.Fprintf(b, "| %s | %s | %s | %s |\n", v, rate(CountOf([]Group{g}, v, c.Slug), " of "), seeds(rows), dates(rows))
		}
		b.WriteString("\n")
		newestFailing(b, g, c.Slug)
		bisections(b, g)
	}
}

// affected is the oldest and newest release on which groups showed slug.
func affected(groups []Group, slug string) (first, last string) {
	var vs []string
	for _, g := range groups {
		for _, r := range g.Rows {
			if r.Showed(slug) && !slices.Contains(vs, r.Release) {
				vs = append(vs, r.Release)
			}
		}
	}
	if len(vs) == 0 {
		return "", ""
	}
	SortReleases(vs)
	return vs[0], vs[len(vs)-1]
}

func groupName(g Group) string {
	s := "`" + g.Workload + "`"
	if g.Tag != "" {
		s += ", cell " + g.Tag
	}
	return s
}

// commandBlock is the scenario's command with the release as a
// placeholder, and the releases it ran on.
func commandBlock(b *strings.Builder, g Group) {
	if g.Scenario == "" {
		fmt.Fprintf(b, "No command recorded (a run stored before run.json kept it); cell `%s`.\n\n", g.Rows[0].Cell)
	} else {
		fmt.Fprintf(b, "```sh\n%s %s\n```\n\n", g.Scenario, Placeholder)
	}
	if g.Tag != "" {
		fmt.Fprintf(b, "The run's settings gave several cells; this is the one tagged `%s`.\n\n", g.Tag)
	}
	fmt.Fprintf(b, "Releases run: %s.\n\n", strings.Join(g.Releases(), ", "))
}

// newestFailing names the newest run of g that showed slug: its finding
// and the command that reruns that cell.
func newestFailing(b *strings.Builder, g Group, slug string) {
	for i := len(g.Rows) - 1; i >= 0; i-- {
		r := g.Rows[i]
		if !r.Showed(slug) {
			continue
		}
		fmt.Fprintf(b, "Newest run that showed it: %s, cell `%s` on %s (seed %d)", r.Run, r.Cell, r.Release, r.Seed)
		switch {
		case strings.HasPrefix(r.Finding, FindingsDir+"/"):
			fmt.Fprintf(b, "; its finding: [%s](%s)", r.Finding, r.Finding)
		case r.Finding != "":
			fmt.Fprintf(b, "; its finding: `%s`", r.Finding)
		}
		b.WriteString(".")
		if r.Rerun != "" {
			fmt.Fprintf(b, " Rerun:\n\n```sh\n%s\n```", r.Rerun)
		}
		b.WriteString("\n\n")
		return
	}
}

// bisections writes what each --bisect run of the group found, once per
// run.
func bisections(b *strings.Builder, g Group) {
	var done []string
	for _, r := range g.Rows {
		if r.Bisect == nil || slices.Contains(done, r.Run) {
			continue
		}
		done = append(done, r.Run)
		var probes []string
		for _, p := range r.Bisect.Probes {
			probes = append(probes, fmt.Sprintf("%s %d of %d", p.ServerVersion, p.Failed, p.Runs))
		}
		fmt.Fprintf(b, "Bisection (run %s): %s. Probes: %s.\n\n", r.Run, strings.TrimSuffix(r.Bisect.Detail, "."), strings.Join(probes, ", "))
	}
}

// cleanSection lists the scenarios no run of which showed an anomaly.
func cleanSection(b *strings.Builder, m Matrix) {
	clean := m.Clean()
	if len(clean) == 0 {
		return
	}
	b.WriteString("## Scenarios that showed no anomaly\n\n")
	for _, g := range clean {
		var per []string
		for _, v := range g.Releases() {
			per = append(per, v+" "+rate(CountOf([]Group{g}, v, ""), "/"))
		}
		s := g.Scenario
		if s == "" {
			s = "(no command recorded) " + g.Rows[0].Cell
		} else {
			s += " " + Placeholder
		}
		tag := ""
		if g.Tag != "" {
			tag = " (cell " + g.Tag + ")"
		}
		fmt.Fprintf(b, "- `%s`%s: %s\n", s, tag, strings.Join(per, ", "))
	}
	b.WriteString("\n")
}

func seeds(rows []Row) string {
	var out []string
	for _, r := range rows {
		if s := strconv.FormatUint(r.Seed, 10); !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return strings.Join(out, ", ")
}

func dates(rows []Row) string {
	var out []string
	for _, r := range rows {
		if d := r.Date.UTC().Format("2006-01-02"); !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return strings.Join(out, ", ")
}

// esc keeps a title from breaking a table row or a heading.
func esc(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

// anchor is the heading's anchor as GitHub makes it: lower case, spaces
// to dashes, punctuation but dashes and underscores dropped.
func anchor(title string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(esc(title)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r > 127:
			b.WriteRune(r)
		}
	}
	return b.String()
}
