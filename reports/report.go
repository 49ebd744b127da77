// Package reports turns a stored run into what people and CI read:
// report.html, one self-contained page (inline CSS, and SVG charts drawn
// with gonum/plot; nothing fetched, relative links only) that states the
// verdict in one sentence, compares the cells side by side and charts them
// over time; and junit.xml, one testcase per cell and checker.
//
// It owns the generic page: what every run's results hold (verdicts,
// checks, faults, recovery, histories, memory, files, the rerun command),
// rendered for any workload, and the chart, table and format helpers. A
// workload's own parts come from the View it registers (RegisterView);
// reports imports no workload, nor the pipeline (package run): what it
// reads is package record's, the exit-code and --expect policy too; the
// page shows the judged result.
//
// Everything is rebuilt from the run folder alone (results.json, run.json,
// each cell's history.jsonl, logs, porcupine files, and what a view reads),
// so `chaos report DIR` can re-render a run that was moved, uploaded or
// made by an older binary.
package reports

import (
	"bytes"
	"fmt"
	"path/filepath"

	"github.com/jetstream-chaos/jetstream-chaos/internal/atomicfile"
	"github.com/jetstream-chaos/jetstream-chaos/record"
)

// Files written into the run folder.
const (
	HTMLFile  = "report.html"
	JUnitFile = "junit.xml"
)

// Options tune Write.
type Options struct {
	// Expect adds known anomalies (see record.Expectation) to those recorded in
	// results.json's spec.expect.
	Expect []record.Expectation
}

// Write reads the run folder dir and writes report.html and junit.xml into
// it. It returns the loaded run, so a caller can print the headline.
func Write(dir string) (*Run, error) { return WriteWith(dir, Options{}) }

// WriteWith is Write with options.
func WriteWith(dir string, opts Options) (*Run, error) {
	r, err := Load(dir)
	if err != nil {
		return nil, err
	}
	r.Expect = mergeExpect(r.Expect, opts.Expect)
	// junit.xml first: the page links to it.
	var page, junit bytes.Buffer
	if err := writeJUnit(&junit, r, r.Expect); err != nil {
		return r, fmt.Errorf("render %s: %w", JUnitFile, err)
	}
	if err := atomicfile.Write(filepath.Join(dir, JUnitFile), junit.Bytes()); err != nil {
		return r, err
	}
	if err := HTML(&page, r); err != nil {
		return r, fmt.Errorf("render %s: %w", HTMLFile, err)
	}
	return r, atomicfile.Write(filepath.Join(dir, HTMLFile), page.Bytes())
}

func mergeExpect(a, b []record.Expectation) []record.Expectation {
	seen := map[record.Expectation]bool{}
	var out []record.Expectation
	for _, e := range append(append([]record.Expectation(nil), a...), b...) {
		if !seen[e] {
			seen[e] = true
			out = append(out, e)
		}
	}
	return out
}
