package reports

import (
	"html/template"
	"sync"

	"github.com/jetstream-chaos/jetstream-chaos/record"
)

// View renders what a page shows of one workload beyond the generic parts.
// A workload registers one under its name (record.Spec.Workload) from an init
// function; a run whose workload has none gets the generic page: a verdict
// sentence from the checks, the cells side by side, every check, the
// charts of history.jsonl with the fault windows, files and the rerun
// command.
//
// Every method adds to what the generic page already filled in, so a view
// says only what is its own. Fragments of HTML are template.HTML: a view
// escapes what it puts in them (html/template does).
//
// A View may also have a method CutShort() string: where a cell with no
// results.json of its own (the run was interrupted hard, or is still
// going) keeps what it measured, e.g. "what was measured is in
// catchup.json". Without one the page points at chaos check.
type View interface {
	// Load reads a cell's workload-owned files from cellDir ("" when the
	// cell has no folder), once, before anything renders; what it read goes
	// into c.Data, and it may set c.Memory for the memory chart. An error
	// is kept in c.DataErr and the page renders without the data.
	Load(cellDir string, c *Cell) error
	// Page fills the run-wide parts: the cells' labels, the headline, the
	// intro, the rows of the cells table, blocks under it, the parameters.
	Page(p *Page)
	// Cell fills one cell's section: its sentence, facts, charts, tables
	// and files.
	Cell(p *Page, c *Cell, s *CellSection)
	// JUnit says what a cell's JUnit suite carries beyond its checks.
	JUnit(r *Run, c *Cell) JUnitExtra
}

// JUnitExtra is what a view adds to a cell's JUnit suite.
type JUnitExtra struct {
	Properties []Param
	// Finding is the cell's finding in words: the harness testcase's
	// system-out, or, when the cell had a harness error, a line added to
	// the error's body. Empty: the generic "N ops, files in DIR".
	Finding string
}

var (
	viewMu sync.RWMutex
	views  = map[string]View{}
)

// RegisterView makes v render runs of the workload (record.Spec.Workload). A
// second registration for one workload replaces the first.
func RegisterView(workload string, v View) {
	viewMu.Lock()
	defer viewMu.Unlock()
	views[workload] = v
}

// viewFor is the view of a workload, nil when none is registered.
func viewFor(workload string) View {
	viewMu.RLock()
	defer viewMu.RUnlock()
	return views[record.StoredWorkload(workload)]
}

// cutShort is where a view's cells cut short keep their measurements.
type cutShort interface{ CutShort() string }

// Block is a section a view adds between the cells table and the charts:
// its title, a lead paragraph and, when there is one, a chart.
type Block struct {
	ID, Nav string // anchor and the navigation bar's link text
	Title   string
	Lead    string
	Chart   template.HTML // empty: the lead alone
}

// CSS classes of a value in the cells table.
const (
	ClassOK      = "ok"
	ClassBad     = "bad"
	ClassUnknown = "unk"
	ClassError   = "err"
	ClassNA      = "na"
)

// MatrixRow is a row of the cells table: a group heading, or a label (and
// a hint under it) with one value per cell.
type MatrixRow struct {
	Label, Hint string
	Group       bool
	Vals        []MatrixVal
}

// MatrixVal is one cell's value in a row; Href links it.
type MatrixVal struct {
	Text, Class, Href string
}

// NA is a value that does not apply to the cell.
var NA = MatrixVal{Text: "–", Class: ClassNA}

// GroupRow is a row that heads a group of rows.
func GroupRow(label string) MatrixRow { return MatrixRow{Label: label, Group: true} }
