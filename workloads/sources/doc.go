// Package sources is the sources-and-mirrors workload, `--workload
// sources`: streams that feed streams, as multi-team NATS deployments wire
// them (the first seed report's setup: one stream exported to a second
// read by durable consumers).
//
// On one cluster a cell creates:
//   - --origins origin streams <S>_O1.. (subjects <s>.o<n>.>), with limits
//     or work-queue retention (--origin-retention);
//   - <S>_MIRROR, a mirror of the first origin (not in a work-queue cell:
//     before 2.14 a work-queue origin gives each message to one sourcing
//     consumer, so a mirror would split them with the sourced stream);
//   - <S>_ALL, which sources every origin, each through the subject
//     transform <s>.o<n>.> -> <s>.all.o<n>.> with --transform on;
//   - --consumers durable pull consumers of <S>_ALL, read, acknowledged,
//     nak'ed and drained by the queue workload's own consumer side
//     (queue.Attach), so its checkers judge them (queue.Judge).
//
// Producers publish unique bodies (p<k>-<n>) with a Nats-Msg-Id, retried
// under the same id. With --repeat-ids on, every RepeatEvery-th publish
// reuses an id of its producer once three of the cell's 1 s duplicate
// windows have passed (nats-server PR 8043's case). A sampler records every
// copy's progress once a second (copy-state ops: each origin's last
// sequence, each copy's last origin sequence, its reported lag). After the
// heal the finish waits for the copies; past --copy-bound it steps the
// stalled copy's leader down once and records it (copy-step-down), then
// reads every stream back (streams.json) and the origins' replicas.
//
// --fault-target aims single-node faults at the leader of the origin, the
// mirror or the sourced stream (Plan.AimLeader; partition-leader and
// stepdown follow the same stream), or, with any, at a random node.
//
// # Checks
//
//   - mirror-copy: the mirror holds exactly the origin's messages at the
//     origin's sequences;
//   - source-exactly-once: every message an origin holds is in the sourced
//     stream once, in its origin's order, and no acknowledged message is
//     gone from a limits origin;
//   - source-stall: every copy catches up within --copy-bound of the heal;
//   - workqueue-origin: what a work-queue origin removed reached the
//     sourced stream, and the origin's replicas agree;
//   - replica-divergence of the first origin (limits cells), and the
//     consumers' queue-lost, queue-duplicate and queue-redelivery.
//
// Each check_*.go states its rules and the server behaviour they rest on;
// check_test.go holds a hand-made fixture per anomaly and clean ones.
package sources
