// Package catchup is the workload of the report "Server crash loop on
// JetStream catchup": a replica with a new, empty volume catches a large R3
// stream up over the network while writes go on, and when the catch-up
// ends the backlog is pulled into memory; the server is OOM-killed under
// its limit, and every restart repeats it.
//
// One cell, as the pipeline drives it (Setup, then the instance's Run and
// Finish):
//
//  1. fill: create an R3 file stream and publish --backlog bytes of
//     --payload-sized messages, each with a unique id (header Chaos-Id,
//     "<publisher>.<n>", sequential per publisher);
//  2. down: kill the target (a follower, or the leader with --target
//     leader), wait until it is down, and wipe its store, as if it got a new
//     volume; its hard memory limit is set now, while it is down;
//  3. keep publishing at --rate for --down;
//  4. restart it (under --memory-limit, GOMEMLIMIT per --gomemlimit), with
//     publishing going on for --write-for (0: until it is current);
//  5. wait, at most --catchup-timeout, until it is current: it holds every
//     message the leader held half a second earlier and its /healthz is OK
//     (commit == applied). A crash loop (--crash-loop restarts by the
//     runtime) or a death with no restart ends the wait early, so a run
//     under a limit the catch-up exceeds reports instead of hanging. Once
//     current, watch --settle more: the report's jump came right after;
//  6. heal (lift the limit, start the target if down, wait until every
//     replica is current) and verify: every replica has the same first and
//     last sequence and message count, and every acknowledged id is in the
//     stream (read back with headers only, ids in a bitmap).
//
// Measured over time: by the pipeline's observer of every node (package
// observe, nodes.jsonl), memory (cgroup usage as the limit sees it, and RSS
// from /varz) every --sample-interval, the runtime's state (OOM kills,
// restarts), /healthz and each node's copy of the stream at most 4 times a
// second, from which the target's progress against the leader is put
// together (lag.go); by the workload, each publish's ack latency and
// errors, per phase, and optional gets through the target (--read-rate),
// which with Direct Get on it answers itself.
//
// GOMEMLIMIT policy (--gomemlimit): auto is 80 % of --memory-limit (the
// policy of cluster.Config.GoMemLimitFor: headroom for memory the Go
// runtime does not account for) and unset without a limit; off leaves it
// unset; a size sets it. It is fixed when a node is created, so every node
// gets it (see Options.ClusterConfig); only the target gets the hard limit.
//
// Checks (checker.Result, verdict valid, invalid or unknown): oom-kill,
// crash-loop, catch-up (current within the bound), recovery (after the
// heal), replicas-agree, acked-present.
//
// Files in the cell's dir: catchup.json (the Result: what is the catch-up's
// own, naming nodes.jsonl for the nodes' series, which Load puts back, as
// it counts the log lines of interest); the pipeline's history.jsonl
// (every publish and get as an op, ops.go: about 160 bytes each, so the
// default 1 GiB backlog of 4 KiB messages writes about 45 MB), nodes.jsonl,
// config/ and logs/ of every node.
// Cells stored before the history recorded publishes have publish.csv
// (publishes per second) beside catchup.json. Cells stored before the
// pipeline observed the nodes hold the series in catchup.json, with
// memory.csv, lag.csv, events.jsonl, health.jsonl and states.jsonl beside
// it; they load as they are.
package catchup
