// Package scheduleview is the schedule workload's part of finding.md: its
// finding classes, with the promises they break, and its settings in a
// bug report's words. Its page is the generic one.
package scheduleview

import (
	"github.com/jetstream-chaos/jetstream-chaos/findings"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/schedule"
)

// The schedule checks' anomaly kinds as finding.md sections (the kinds and
// their rules are in the schedule package's check_*.go). The kinds a check
// counts as unsure (unread) are not listed: they make a check unknown,
// never a finding.
func init() {
	findings.RegisterClasses(
		findings.Class{Check: schedule.CheckOnce, Kind: "never_fired", Slug: "schedule-never-fired", Rank: 0, Promise: promiseOnce,
			Title: "An acknowledged one-shot message schedule never fired"},
		findings.Class{Check: schedule.CheckOnce, Kind: "fired_twice", Slug: "schedule-fired-twice", Rank: 0, Promise: promiseOnce,
			Title: "A one-shot message schedule fired twice"},
		findings.Class{Check: schedule.CheckOnce, Kind: "lost", Slug: "schedule-firing-lost", Rank: 0, Promise: promiseStored,
			Title: "A message a schedule fired was read, then lost from the stream"},
		findings.Class{Check: schedule.CheckOnce, Kind: "refused_fired", Slug: "schedule-refused-fired", Rank: 1, Promise: promiseRefused,
			Title: "A message schedule whose create was refused fired"},
		findings.Class{Check: schedule.CheckOnce, Kind: "early", Slug: "schedule-fired-early", Rank: 1, Promise: promiseOnce,
			Title: "A one-shot message schedule fired before its time"},
		findings.Class{Check: schedule.CheckOnce, Kind: "late", Slug: "schedule-fired-late", Rank: 2, Promise: promiseOnce,
			Title: "A one-shot message schedule fired later than its bound"},
		findings.Class{Check: schedule.CheckRepeat, Kind: "fired_twice", Slug: "schedule-repeat-fired-twice", Rank: 0, Promise: promiseRepeat,
			Title: "A repeating message schedule fired twice for one period"},
		findings.Class{Check: schedule.CheckRepeat, Kind: "missed", Slug: "schedule-repeat-missed", Rank: 1, Promise: promiseRepeat,
			Title: "A repeating message schedule missed its period"},
		findings.Class{Check: schedule.CheckRepeat, Kind: "early", Slug: "schedule-repeat-early", Rank: 1, Promise: promiseRepeat,
			Title: "A repeating message schedule fired before the time it had named"},
		findings.Class{Check: schedule.CheckRepeat, Kind: "refused_fired", Slug: "schedule-repeat-refused-fired", Rank: 1, Promise: promiseRefused,
			Title: "A repeating message schedule whose create was refused fired"},
		findings.Class{Check: schedule.CheckRemoved, Kind: "left", Slug: "schedule-left-after-firing", Rank: 1, Promise: promiseRemoved,
			Title: "A one-shot message schedule stayed on a replica after it fired"},
	)
}

const (
	promiseOnce = "A message published with `Nats-Schedule: @at <time>` to a stream with `AllowMsgSchedules` is held " +
		"until that time and then published once on its `Nats-Schedule-Target`; the schedule is removed as it fires " +
		"(ADR-51; nats-server `server/scheduler.go`, `getScheduledMessages`: a task fires once its time is not after now)."
	promiseRepeat = "A schedule `@every <period>` fires once per period; each firing names the next due time in " +
		"`Nats-Schedule-Next`, which becomes the schedule's due time, and periods a stopped or partitioned cluster " +
		"could not fire are skipped, firing once on recovery (ADR-51; nats-server `server/scheduler.go`, " +
		"`parseMsgSchedule`: \"skip ahead and only fire once\")."
	promiseStored = "A message stored in a replicated stream stays until a limit, a retention policy or a client removes " +
		"it; this stream had no limits, limits retention, and no client removed a target."
	promiseRefused = "A publish the server answers with an error is not stored (JetStream publish acknowledgements), so a " +
		"schedule whose create was refused must never fire."
	promiseRemoved = "A one-shot schedule's firing carries `Nats-Schedule-Next: purge`, and storing it removes the " +
		"schedule message on every replica (ADR-51; nats-server `server/scheduler.go`, `server/stream.go`)."
)
