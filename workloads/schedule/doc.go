// Package schedule is the message schedule workload, `--workload
// schedule` (ADR-51): schedulers on every node publish one-shot schedules
// (`@at`, nats-server 2.12+) a few seconds ahead, each with a target
// subject of its own, while repeating schedules (`@every`, 2.14+) fire
// all along; a consumer reads the targets as they fire, and after the
// heal the targets are read back from the leader and every replica's copy
// of the schedules is read.
//
// Each firing names its schedule (`Nats-Scheduler`) and, for a repeating
// one, the time of the next firing (`Nats-Schedule-Next`, which the
// server then makes the schedule's due time: nats-server scheduler.go
// getScheduledMessages, filestore.go). So a firing is tied to its schedule
// and its period without trusting any client's clock; the stored
// timestamps come from the servers, whose containers share the host's
// clock.
//
// The checks, over plain data (Schedule, Firing, Stop and the fault
// windows):
//   - schedule-once (Once): a one-shot schedule that was acknowledged fires
//     exactly once, not before its time, and within --fire-bound after it
//     (or after its create was acknowledged, if later), or, when a fault
//     window overlaps that span, within --fire-grace after the window;
//     a firing seen live and missing from the read-back is a lost message;
//   - schedule-repeat (Repeat): a repeating schedule fires once per period
//     (no two firings name the same next time), never before its due
//     time, and misses none: the gap to the next firing (or to its stop)
//     stays within the period plus --fire-bound, or --fire-grace after a
//     fault window that overlaps it. The server skips periods a fault made
//     it miss and fires once for them (parseMsgSchedule: "skip ahead and
//     only fire once"), so that is one firing, not a miss;
//   - schedule-removed (Removed): a one-shot schedule that fired is gone
//     from every replica's copy of the stream (its firing carries
//     `Nats-Schedule-Next: purge`);
//   - replica-divergence (checker/replicas): the replicas agree.
//
// A cell with --schedule-stream workqueue keeps the schedules in a
// work-queue stream and reads the targets from a stream that sources
// them (nats-server issue 8423: there, the sourcing acknowledged later
// messages and removed pending schedules, which never fired).
package schedule
