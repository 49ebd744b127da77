// Package record is the stored record of runs: what `chaos run` writes
// (run.json, the run's results.json, each cell's results.json) and every
// other command reads back (check, report, hunt, findings). It holds the
// plain data of a run and its cells, their verdicts and exit codes, the
// --expect policy judged over them, and the reading and writing of the
// files, old shapes included.
//
// It sits at the bottom of the graph: it imports only the packages whose
// types it stores (checker's results, nemesis' fault windows, the
// cluster's configuration, the online checks' counts, history's ops), so a
// reader of stored runs links no pipeline and no workload.
package record

// The files of a run folder that this package reads and writes.
const (
	// SpecFile is the run's Spec, written before the first cell starts.
	SpecFile = "run.json"
	// ResultFile is the run's Result in the run folder, and a cell's
	// CellResult in the cell folder.
	ResultFile = "results.json"
)
