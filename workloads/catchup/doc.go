// Package catchup is the workload of the report "Server crash loop on
// JetStream catchup": a replica with a new, empty volume catches a large R3
// stream up over the network while writes go on, and when the catch-up
// ends the backlog is pulled into memory; the server is OOM-killed under
// its limit, and every restart repeats it.
//
// One cell (Setup, then the instance's Run and Finish):
//
//  1. fill: create an R3 file stream and publish --backlog bytes of
//     --payload-sized messages, each with a unique id (msgid.Header);
//  2. down: kill the target (a follower, or the leader with --target
//     leader) and wipe its store, as if it got a new volume; its hard
//     memory limit is set while it is down; keep publishing at --rate for
//     --down;
//  3. restart it, publishing on for --write-for (0: until it is current),
//     and wait at most --catchup-timeout until it is current: it holds
//     every message the leader held half a second earlier and its /healthz
//     is OK. A crash loop or a death with no restart ends the wait early;
//     once current, watch --settle more (the report's jump came after);
//  4. heal (lift the limit, start the target if down) and verify: the
//     replicas agree and every acknowledged id is in the stream.
//
// The pipeline's observer samples every node (memory, the runtime's state,
// /healthz, each copy of the stream: nodes.jsonl), from which the target's
// progress is put together (lag.go); the workload records each publish and
// get through the target (--read-rate) in the history (ops.go), and what is
// its own in catchup.json (Result). Cells stored before the pipeline
// observed the nodes hold the series in catchup.json, with memory.csv,
// lag.csv, publish.csv, events.jsonl, health.jsonl and states.jsonl beside
// it; they load as they are.
package catchup
