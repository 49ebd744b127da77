// Package index writes a store's index.html: one row per stored run (its
// date, workload, releases, faults, seeds, verdict and each cell's failure
// rate over --runs, with a link to its report), filters by workload,
// release, fault and verdict, and a trend chart of each cell's failure
// rate across the runs.
//
// It reads run folders through package record alone, so it links no
// pipeline, workload or report view. The page is one static file with
// inline CSS, SVG and a little script; every link is relative to the
// store, so a store uploaded as a CI artifact opens as it is.
package index

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/internal/atomicfile"
)

// FileName is the index's name in the store.
const FileName = "index.html"

// Index is a store's runs, newest first, and the trend they draw.
type Index struct {
	Store  string // the store folder as given
	Rows   []Row
	Series []Series
}

// Build reads every run folder of store. A folder that cannot be read is
// a row saying why; only a store that cannot be listed is an error.
func Build(store string) (*Index, error) {
	ids, err := RunDirs(store)
	if err != nil {
		return nil, err
	}
	ix := &Index{Store: store}
	for _, id := range ids {
		ix.Rows = append(ix.Rows, readRow(store, id))
	}
	// Newest first; runs of one instant by id, so the order is stable;
	// undated rows (unreadable, named otherwise) last.
	slices.SortFunc(ix.Rows, func(a, b Row) int {
		if c := b.Date.Compare(a.Date); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	})
	ix.Series = Trend(ix.Rows)
	return ix, nil
}

// Write builds store's index and writes it as store/index.html.
func Write(store string) (*Index, error) {
	ix, err := Build(store)
	if err != nil {
		return nil, err
	}
	return ix, ix.Write()
}

// Write writes the page as index.html in the store, whole or not at all
// (two runs finishing together may both write it).
func (ix *Index) Write() error {
	var buf bytes.Buffer
	if err := ix.HTML(&buf); err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(ix.Store, FileName), buf.Bytes())
}

//go:embed index.html.tmpl
var pageTmpl string

var tmpl = template.Must(template.New("index").Funcs(template.FuncMap{
	"list":  jsonList,
	"args":  func(v ...any) []any { return v },
	"join":  func(s []string) string { return strings.Join(s, ", ") },
	"seeds": seedsText,
	"date": func(r Row) string {
		if r.Date.IsZero() {
			return "—"
		}
		return r.Date.Format("2006-01-02 15:04")
	},
	"rate": rateText,
	"color": func(i int) string {
		c, _ := Color(i)
		return c
	},
}).Parse(pageTmpl))

// page is what the template reads.
type page struct {
	*Index
	Name                                  string
	Workloads, Releases, Faults, Verdicts []string
	Chart                                 template.HTML
	Unreadable                            int
}

// HTML writes the page.
func (ix *Index) HTML(w io.Writer) error {
	p := page{Index: ix, Name: filepath.Base(filepath.Clean(ix.Store)), Chart: Chart(ix.Series)}
	for _, r := range ix.Rows {
		p.Workloads = addAll(p.Workloads, r.Workload)
		p.Releases = addAll(p.Releases, r.Releases...)
		p.Faults = addAll(p.Faults, r.Faults...)
		p.Verdicts = addAll(p.Verdicts, r.Verdict)
		if r.Verdict == Unreadable {
			p.Unreadable++
		}
	}
	for _, l := range [][]string{p.Workloads, p.Releases, p.Faults, p.Verdicts} {
		slices.Sort(l)
	}
	return tmpl.Execute(w, p)
}

// addAll adds the non-empty values not in list yet.
func addAll(list []string, vs ...string) []string {
	for _, v := range vs {
		if v != "" && !slices.Contains(list, v) {
			list = append(list, v)
		}
	}
	return list
}

// jsonList is a data attribute's value, a string or a list of them as a
// JSON list: the filters read each attribute as a list.
func jsonList(v any) string {
	vs := []string{}
	switch v := v.(type) {
	case string:
		vs = append(vs, v)
	case []string:
		vs = append(vs, v...)
	}
	b, _ := json.Marshal(vs)
	return string(b)
}

// seedsText names up to three seeds and counts the rest (--runs derives
// one per repeat).
func seedsText(seeds []uint64) string {
	var parts []string
	for i, s := range seeds {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("… %d in all", len(seeds)))
			break
		}
		parts = append(parts, strconv.FormatUint(s, 10))
	}
	return strings.Join(parts, ", ")
}

// rateText is a cell's failed runs over its runs, with the percentage
// when --runs repeated it.
func rateText(t Tally) string {
	s := fmt.Sprintf("%d/%d", t.Failed, t.Runs)
	if t.Runs > 1 {
		s += " (" + percent(t.Rate()) + ")"
	}
	return s
}
