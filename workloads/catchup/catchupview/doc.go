// Package catchupview is the report view of the catch-up workload (chaos run
// --workload catchup), registered with package reports for "catchup": it
// owns everything a catch-up page shows beyond the generic page.
//
// Each cell fills an R3 stream, kills and wipes one replica (the target),
// restarts it, under a memory limit when one is set, and measures its way
// back. results.json holds the checks (catchup.CheckOOMKill and the
// others); the numbers an operator asks for (memory per node, OOM kills
// with times, catch-up time, publish latency) are in the cell's
// catchup.json, which the view reads once a cell (Load) and says in words:
//
//   - the headline, a sentence a cell named by version and Direct Get: "n1
//     caught up 1.04 GiB in 4.9 s, peak 0.98 GiB RSS (0.94x the stream)
//     without a memory limit, no OOM kill, nothing lost";
//   - the cells table: setup, catch-up time and milestones, the target's
//     and the other nodes' peaks against the limit, OOM kills, restarts and
//     crash loops, publish latency and errors, the data; a versions x
//     Direct Get matrix charts two to a row;
//   - per cell, charts with the target's phases shaded (its memory against
//     its limit and GOMEMLIMIT, every node's memory, how far it was behind,
//     publish latency), then tables of the nodes, the events, the phases and
//     the server log lines of interest, and links to the workload's files;
//   - JUnit suite properties (the catch-up settings, the target node) and
//     the cell's sentence on its harness testcase.
//
// It also feeds the memory chart of any cell holding a catchup.json
// (reports.RegisterMemorySource). A package of its own, beside package
// catchup rather than in it, because package run still imports catchup and
// reports imports run.
package catchupview
