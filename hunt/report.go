package hunt

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
)

// ReportFile is the campaign's account in Options.Dir.
const ReportFile = "hunt.md"

// WriteReport writes hunt.md: what the campaign found and what it covered.
func WriteReport(dir string, st *State) error {
	var b strings.Builder
	verdicts := map[string]int{}
	for _, r := range st.Runs {
		verdicts[r.Verdict]++
	}
	fmt.Fprintf(&b, "# Hunt: %s schedules on %s\n\n", st.Mode, strings.Join(st.Versions, ", "))
	fmt.Fprintf(&b, "%d runs in %s of a %s budget (seed %d, %s per run): %s.\n\n", len(st.Runs),
		st.Spent.Round(time.Second), st.Budget, st.Seed, st.RunTime, joinCounts(verdicts))
	writeFound(&b, st)
	writeCoverage(&b, st)
	writeRuns(&b, st)
	return writeFile(filepath.Join(dir, ReportFile), []byte(b.String()))
}

func writeFound(b *strings.Builder, st *State) {
	fmt.Fprintf(b, "## Anomaly classes found: %d\n\n", len(st.Found))
	if len(st.Found) == 0 {
		b.WriteString("None. Runs that found nothing prove nothing absent: see the coverage below.\n\n")
		return
	}
	b.WriteString("| class | first found | after | schedule | finding |\n|---|---|---|---|---|\n")
	for _, f := range st.Found {
		link := "none written"
		if f.Finding != "" {
			link = fmt.Sprintf("[%s](%s)", filepath.Base(f.Finding), f.Finding)
		}
		fmt.Fprintf(b, "| %s: %s | run %d (%s) | %s | `--nemesis %s` %s |  %s |\n", f.Class, oneLine(f.Title), f.Run,
			f.Plan.Version, f.After.Round(time.Second), f.Plan.Nemesis, knobsText(f.Plan), link)
	}
	b.WriteString("\nRerun commands:\n\n")
	for _, f := range st.Found {
		fmt.Fprintf(b, "- %s: `%s`\n", f.Class, f.Rerun)
	}
	b.WriteString("\n")
}

func writeCoverage(b *strings.Builder, st *State) {
	fired, armed, never := map[string]int{}, map[string]int{}, map[string]int{}
	faults := map[string]int{}
	for _, r := range st.Runs {
		for k, v := range r.Events {
			fired[k] += v
		}
		for _, f := range r.Plan.Features {
			if kind, name, _ := strings.Cut(f, ":"); kind == "event" {
				armed[triggerKind(name)]++
			} else if kind == "fault" {
				faults[name]++
			}
		}
		for _, t := range r.NeverFired {
			never[triggerKind(t)]++
		}
	}
	b.WriteString("## Coverage\n\n")
	fmt.Fprintf(b, "Faults drawn (runs): %s.\n\n", orNone(joinCounts(faults)))
	fmt.Fprintf(b, "Events seen (all runs): %s.\n\n", orNone(joinCounts(fired)))
	if len(armed) > 0 {
		b.WriteString("| trigger | runs armed | runs where it never fired |\n|---|---|---|\n")
		for _, k := range slices.Sorted(maps.Keys(armed)) {
			fmt.Fprintf(b, "| %s | %d | %d |\n", k, armed[k], never[k])
		}
		b.WriteString("\n")
	}
}

func writeRuns(b *strings.Builder, st *State) {
	b.WriteString("## Runs\n\n| run | version | schedule | verdict | classes | took | folder |\n|---|---|---|---|---|---|---|\n")
	for _, r := range st.Runs {
		classes := strings.Join(r.Classes, ", ")
		if r.Error != "" {
			classes = joinErr(classes, "error: "+oneLine(r.Error))
		}
		fmt.Fprintf(b, "| %d | %s | `%s` %s | %s | %s | %s | %s |\n", r.N, r.Plan.Version, r.Plan.Nemesis, knobsText(r.Plan),
			r.Verdict, classes, r.Took.Round(time.Second), r.Dir)
	}
}

// triggerKind is a trigger's event without its delay: log:/x/+1s -> log:/x/.
func triggerKind(t string) string {
	if strings.HasPrefix(t, "log:/") {
		if i := strings.LastIndex(t, "/"); i > 4 {
			return t[:i+1]
		}
		return t
	}
	k, _, _ := strings.Cut(t, "+")
	return k
}

func knobsText(p Plan) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(p.Knobs)) {
		parts = append(parts, k+"="+p.Knobs[k])
	}
	return fmt.Sprintf("every %s, %s", p.Interval, strings.Join(parts, " "))
}

func joinCounts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return m[keys[i]] > m[keys[j]] || (m[keys[i]] == m[keys[j]] && keys[i] < keys[j]) })
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	s = strings.ReplaceAll(s, "|", "\\|")
	if len(s) > 160 {
		s = s[:157] + "..."
	}
	return s
}
