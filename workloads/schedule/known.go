package schedule

import "github.com/jetstream-chaos/jetstream-chaos/record"

// WorkQueueSourceDrops is the schedule workload's known anomaly for
// --expect: on a work-queue stream whose targets another stream sources,
// the sourcing's acknowledgement of a later target removed pending
// schedules of other subjects, which then never fired (nats-server issue
// 8423, fixed in v2.14.6; reproduced here on v2.14.5 and earlier). A run
// on an affected release keeps it as a positive control in its
// work-queue cells ("*schedule-stream-workqueue*=workqueue-source-drops-schedules").
const WorkQueueSourceDrops = "workqueue-source-drops-schedules"

func init() {
	record.RegisterAnomaly(record.KnownAnomaly{
		Name: WorkQueueSourceDrops,
		Doc: "pending schedules removed from a work-queue stream by the acknowledgement of a later message its sourcing " +
			"stream copied (nats-server issue 8423): schedule-once fails with never_fired, schedule-repeat with missed, and nothing else",
		Explains: dropsExplain,
		Found:    dropsFound,
		Witness:  CheckOnce,
	})
}

func dropsFound(m record.Checks) bool { return m.Count(CheckOnce, "never_fired") > 0 }

// dropsExplain: schedule-once's invalid verdict when never_fired is all it
// found, and schedule-repeat's when missed is all it found, once the
// anomaly shows.
func dropsExplain(m record.Checks, check string) bool {
	if !dropsFound(m) {
		return false
	}
	switch check {
	case CheckOnce:
		return only(m, CheckOnce, "never_fired", "fired_twice", "early", "late", "refused_fired", "lost")
	case CheckRepeat:
		return only(m, CheckRepeat, "missed", "fired_twice", "early", "refused_fired")
	}
	return false
}

// only says whether kind is the one of kinds that check counted.
func only(m record.Checks, check, kind string, kinds ...string) bool {
	for _, k := range kinds {
		if k != kind && m.Count(check, k) > 0 {
			return false
		}
	}
	return m.Count(check, kind) > 0
}
