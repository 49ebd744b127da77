package releases

import (
	"slices"
	"strings"
	"time"

	"golang.org/x/mod/semver"
)

// Matrix is the ledger arranged as the page shows it.
type Matrix struct {
	Rows     []Row
	Releases []string // every release of a row, in release order (Releases)
	Classes  []Class  // every class a row showed, by slug
	Groups   []Group  // every scenario, by its command and tag
	Newest   time.Time
}

// Group is one scenario (a command and a cell's tag) and its runs.
type Group struct {
	Scenario, Tag, Workload string
	Rows                    []Row    // in the ledger's order
	Classes                 []string // the slugs any of its runs showed, by slug
}

// Count is a rate: of Runs decided runs (valid or invalid), Showed showed
// the class.
type Count struct{ Showed, Runs int }

// NewMatrix arranges rows (in any order).
func NewMatrix(rows []Row) Matrix {
	rows = slices.Clone(rows)
	Sort(rows)
	m := Matrix{Rows: rows}
	at := map[string]int{}
	titles := map[string]string{}
	for _, r := range rows {
		if r.Date.After(m.Newest) {
			m.Newest = r.Date
		}
		if !slices.Contains(m.Releases, r.Release) {
			m.Releases = append(m.Releases, r.Release)
		}
		key := r.Scenario + "\x00" + r.Tag
		if r.Scenario == "" { // no command recorded: the cell alone names it
			key += "\x00" + r.Workload + "\x00" + r.Cell
		}
		i, ok := at[key]
		if !ok {
			i, at[key] = len(m.Groups), len(m.Groups)
			m.Groups = append(m.Groups, Group{Scenario: r.Scenario, Tag: r.Tag, Workload: r.Workload})
		}
		g := &m.Groups[i]
		g.Rows = append(g.Rows, r)
		for _, c := range r.Classes {
			if _, seen := titles[c.Slug]; !seen {
				titles[c.Slug] = c.Title
				m.Classes = append(m.Classes, c)
			}
			if !slices.Contains(g.Classes, c.Slug) {
				g.Classes = append(g.Classes, c.Slug)
			}
		}
	}
	SortReleases(m.Releases)
	slices.SortFunc(m.Classes, func(a, b Class) int { return strings.Compare(a.Slug, b.Slug) })
	slices.SortFunc(m.Groups, func(a, b Group) int {
		if c := strings.Compare(a.Scenario, b.Scenario); c != 0 {
			return c
		}
		return strings.Compare(a.Tag, b.Tag)
	})
	for i := range m.Groups {
		slices.Sort(m.Groups[i].Classes)
	}
	return m
}

// SortReleases orders releases by semver, oldest first; local builds (a
// commit, a binary's name) after them, by name.
func SortReleases(vs []string) {
	slices.SortFunc(vs, func(a, b string) int {
		va, vb := semver.IsValid(a), semver.IsValid(b)
		switch {
		case va && vb:
			if c := semver.Compare(a, b); c != 0 {
				return c
			}
		case va:
			return -1
		case vb:
			return 1
		}
		return strings.Compare(a, b)
	})
}

// ShowedBy are the groups whose runs showed the class slug.
func (m Matrix) ShowedBy(slug string) []Group {
	var out []Group
	for _, g := range m.Groups {
		if slices.Contains(g.Classes, slug) {
			out = append(out, g)
		}
	}
	return out
}

// Clean are the groups none of whose runs showed a class.
func (m Matrix) Clean() []Group {
	var out []Group
	for _, g := range m.Groups {
		if len(g.Classes) == 0 {
			out = append(out, g)
		}
	}
	return out
}

// CountOf is how many decided runs of groups on release showed the class
// slug ("" counts none: the runs alone). A run counts once per class,
// whatever else it showed.
func CountOf(groups []Group, release, slug string) Count {
	var c Count
	for _, g := range groups {
		for _, r := range g.Rows {
			if r.Release != release || !r.Decided() {
				continue
			}
			c.Runs++
			if slug != "" && r.Showed(slug) {
				c.Showed++
			}
		}
	}
	return c
}

// On are the group's rows on release.
func (g Group) On(release string) []Row {
	var out []Row
	for _, r := range g.Rows {
		if r.Release == release {
			out = append(out, r)
		}
	}
	return out
}

// Releases are the releases the group ran, in release order.
func (g Group) Releases() []string {
	var vs []string
	for _, r := range g.Rows {
		if !slices.Contains(vs, r.Release) {
			vs = append(vs, r.Release)
		}
	}
	SortReleases(vs)
	return vs
}

// Line is a release's line ("v2.15" of "v2.15.3"), "" for a local build.
func Line(release string) string {
	if !semver.IsValid(release) {
		return ""
	}
	return semver.MajorMinor(release)
}

// Lines are the release lines the matrix follows: those the Go module
// proxy serves that issue 27 names.
var Lines = []string{"v2.10", "v2.11", "v2.12", "v2.14", "v2.15"}

// NewestOn is the newest release of the line the matrix has, "" when it
// has none.
func (m Matrix) NewestOn(line string) string {
	newest := ""
	for _, v := range m.Releases {
		if Line(v) == line && (newest == "" || semver.Compare(v, newest) > 0) {
			newest = v
		}
	}
	return newest
}
