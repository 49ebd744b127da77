// Package kvupdateview is the report view of the kv-update workload (chaos
// run --workload kv-update), registered with package reports for
// "kv-update" (and for runs stored before spec.workload existed): it owns
// what a kv-update page says beyond the generic page, all of it read from
// the checks' counts (checker.Count* and the checker names):
//
//   - the headline: "Direct Get on: 2,919 stale reads (6.5 % of reads),
//     2,919 updates rejected because of them; Direct Get off: none (all 6
//     checks passed)." (Summary.Sentence), cells named by what sets their
//     settings apart ("10 keys");
//   - what was tested, in a few lines;
//   - the cells table's reads (stale reads, staleness, session
//     violations), updates (rejections by cause) and data (integrity,
//     linearizable keys with porcupine's page, recovery);
//   - the staleness chart of every cell's stale reads;
//   - the bucket settings among the parameters and each cell's facts.
//
// The settings are read from the stored JSON whatever field holds them, so
// the page renders runs of every shape. A package of its own, beside
// package kvupdate rather than in it, because package run still imports
// kvupdate and reports imports run.
package kvupdateview
