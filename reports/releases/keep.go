package releases

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/internal/atomicfile"
)

// FindingsDir is the folder, beside the page, that keeps a copy of the
// finding the page names for each class and scenario: the stores it was
// read from are not kept with the page.
const FindingsDir = "findings"

// KeepFindings copies into pageDir/findings the finding.md of the newest
// run of each scenario that showed each class (the one the page names),
// and points those rows at the copy (findings/<run>-<cell>.md, relative to
// the page). A row whose finding is already a copy, or whose file the
// stores no longer hold, is left as it is.
func KeepFindings(rows []Row, pageDir string) ([]Row, error) {
	m := NewMatrix(rows)
	keep := map[string]bool{}
	for _, g := range m.Groups {
		for _, slug := range g.Classes {
			for i := len(g.Rows) - 1; i >= 0; i-- {
				if g.Rows[i].Showed(slug) {
					keep[g.Rows[i].Key()] = true
					break
				}
			}
		}
	}
	out := make([]Row, len(rows))
	for i, r := range rows {
		out[i] = r
		if !keep[r.Key()] || r.Finding == "" || strings.HasPrefix(r.Finding, FindingsDir+"/") {
			continue
		}
		b, err := os.ReadFile(r.Finding)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		name := FindingsDir + "/" + r.Run + "-" + r.Cell + ".md"
		if err := os.MkdirAll(filepath.Join(pageDir, FindingsDir), 0o755); err != nil {
			return nil, err
		}
		if err := atomicfile.Write(filepath.Join(pageDir, name), b); err != nil {
			return nil, fmt.Errorf("keep %s: %w", r.Finding, err)
		}
		out[i].Finding = name
	}
	return out, nil
}
