// Package catchupview is the report view of the catch-up workload (chaos run
// --workload catchup), registered with package reports for "catchup".
//
// Each cell fills an R3 stream, kills and wipes one replica (the target),
// restarts it, under a memory limit when one is set, and measures its way
// back. The checks are in results.json; the numbers (memory per node, OOM
// kills, catch-up time, publish latency) in catchup.json, read once a cell
// (Load). The page shows:
//
//   - the headline, a sentence a cell named by version and Direct Get: "n1
//     caught up 1.04 GiB in 4.9 s, peak 0.98 GiB RSS (0.94x the stream)
//     without a memory limit, no OOM kill, nothing lost";
//   - the cells table (setup, catch-up, memory against the limit, deaths,
//     clients, data), two charts to a row for a versions x Direct Get
//     matrix, and peak RSS against the backlog when the backlogs differ;
//   - per cell, its facts, charts with the target's phases shaded (its
//     memory against its limit and GOMEMLIMIT, every node's memory, how far
//     it was behind) beside the pipeline's charts from history.jsonl (the
//     publishes and gets), then what happened to the nodes, the server log
//     lines of interest and links to the cell's files;
//   - JUnit suite properties and the cell's sentence on its harness testcase.
//
// It also feeds the memory chart of any cell holding a catchup.json. It is a
// package of its own because package run imports catchup and reports
// imports run.
package catchupview
