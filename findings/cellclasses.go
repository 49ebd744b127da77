package findings

import (
	"maps"
	"slices"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/record"
)

// ClassRef is an anomaly class a cell showed.
type ClassRef struct {
	Class, Title string
}

// CellClasses are the anomaly classes of a judged cell in its folder: its
// findings' classes, in their order, or, for a workload that writes no
// findings, each invalid check and anomaly kind ("check-kind").
func CellClasses(cellDir string, c record.CellResult) []ClassRef {
	var out []ClassRef
	if fs, _, err := Build(cellDir); err == nil && len(fs) > 0 {
		for _, f := range fs {
			out = append(out, ClassRef{Class: f.Class, Title: f.Title})
		}
		return out
	}
	for _, r := range c.Checks {
		if r.Verdict != checker.Invalid {
			continue
		}
		kinds := map[string]bool{}
		for _, a := range r.Anomalies {
			kinds[a.Kind] = true
		}
		if len(kinds) == 0 {
			kinds[""] = true
		}
		for _, k := range slices.Sorted(maps.Keys(kinds)) {
			cl := r.Name
			if k != "" {
				cl += "-" + strings.ReplaceAll(k, "_", "-")
			}
			out = append(out, ClassRef{Class: cl, Title: r.Summary})
		}
	}
	return out
}
