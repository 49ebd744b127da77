// Package catchupview is the report view of the catch-up workload,
// registered with package reports for "catchup": a headline sentence per
// cell, the cells table, the memory-against-backlog chart when the
// backlogs differ, and per cell its facts, the target's memory and
// progress over time with its phases shaded, the nodes' events and log
// lines; also JUnit properties, finding classes and a describer. It feeds
// the memory chart of any cell holding a catchup.json. It is a package of
// its own because package run imports catchup and reports imports run.
package catchupview
