// Package releases keeps the release matrix: every anomaly class against
// every nats-server release a stored run tried, as docs/releases.md.
//
// Its source is a ledger (docs/releases.jsonl), one row per run of a cell,
// kept in the repository: Collect reads the rows of the stores given,
// Merge joins them with the ledger's (a row of a store replaces the
// ledger's row of the same run, cell and repeat), and Render writes the
// page from the ledger alone. So the page can be rebuilt on a clone without
// a store, and every store read adds its runs.
//
// It reads stored runs through record, findings and reports/index; nothing
// of the pipeline.
package releases

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/internal/atomicfile"
	"github.com/jetstream-chaos/jetstream-chaos/record"
)

// Row is one run of one cell, as the ledger keeps it.
type Row struct {
	Run      string    `json:"run"`  // the run folder's name
	Date     time.Time `json:"date"` // when the run started (UTC)
	Workload string    `json:"workload"`
	// Release is the cell's nats-server: a release (v2.15.3) or a local
	// build's name (a commit, bin.<commit>).
	Release string `json:"release"`
	// Scenario is what the cell ran, whatever the release and seed: the
	// run's command pinned to the cell's own --direct-get and --nemesis,
	// without the flags that pick the release, the seed, the repeats, the
	// store or the expectations (Scenario). Tag, when the run's settings
	// gave several cells, names this cell's.
	Scenario string `json:"scenario"`
	Tag      string `json:"tag,omitempty"`
	Cell     string `json:"cell"`             // the cell's folder name, its repeat included
	Repeat   int    `json:"repeat,omitempty"` // which of --runs (0 without)
	Seed     uint64 `json:"seed"`
	Rerun    string `json:"rerun,omitempty"` // the command that runs this cell's run again
	// Verdict is the cell's as stored (valid, invalid, unknown, error):
	// an anomaly an --expect excused still shows.
	Verdict string  `json:"verdict"`
	Classes []Class `json:"classes,omitempty"`
	// Finding is the cell's finding.md, as the store given names it, ""
	// when it has none.
	Finding string `json:"finding,omitempty"`
	// Bisect is what the run's --bisect found, on every row of that run.
	Bisect *record.Bisection `json:"bisect,omitempty"`
}

// Class is an anomaly class a cell showed (findings.ClassRef).
type Class struct {
	Slug  string `json:"slug"`
	Title string `json:"title"`
}

// Key is what makes a row the same row on a second read: the run, the
// cell and its repeat.
func (r Row) Key() string { return fmt.Sprintf("%s/%s#%d", r.Run, r.Cell, r.Repeat) }

// Decided says the run judged the cell: valid or invalid. An unknown or
// error run counts in no rate.
func (r Row) Decided() bool {
	return r.Verdict == string(record.Valid) || r.Verdict == string(record.Invalid)
}

// Showed says the row's cell showed the class slug.
func (r Row) Showed(slug string) bool {
	return slices.ContainsFunc(r.Classes, func(c Class) bool { return c.Slug == slug })
}

// Merge joins rows read before (the ledger) with rows read now (the
// stores): a row of now replaces the row of before with its Key. The
// result is sorted (Sort).
func Merge(before, now []Row) []Row {
	at := map[string]int{}
	var out []Row
	for _, rows := range [][]Row{before, now} {
		for _, r := range rows {
			if i, ok := at[r.Key()]; ok {
				out[i] = r
				continue
			}
			at[r.Key()] = len(out)
			out = append(out, r)
		}
	}
	Sort(out)
	return out
}

// Sort orders rows by date, then run, cell and repeat: the ledger's
// order, the same for the same rows.
func Sort(rows []Row) {
	slices.SortStableFunc(rows, func(a, b Row) int {
		if c := a.Date.Compare(b.Date); c != 0 {
			return c
		}
		if c := strings.Compare(a.Run, b.Run); c != 0 {
			return c
		}
		if c := strings.Compare(a.Cell, b.Cell); c != 0 {
			return c
		}
		return a.Repeat - b.Repeat
	})
}

// ReadLedger reads the ledger at path: no file is an empty ledger; a line
// that does not decode is an error naming its line.
func ReadLedger(path string) ([]Row, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var rows []Row
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 1<<16), 1<<24)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var r Row
		if err := json.Unmarshal(line, &r); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, n, err)
		}
		rows = append(rows, r)
	}
	return rows, sc.Err()
}

// WriteLedger writes rows to path, one JSON object a line, whole or not
// at all.
func WriteLedger(path string, rows []Row) error {
	return atomicfile.WriteWith(path, func(w *bufio.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		for _, r := range rows {
			if err := enc.Encode(r); err != nil {
				return err
			}
		}
		return nil
	})
}
