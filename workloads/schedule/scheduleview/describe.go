package scheduleview

import (
	"fmt"

	"github.com/jetstream-chaos/jetstream-chaos/findings"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/schedule"
)

// A schedule cell's settings in a finding's words (see package schedule's
// doc for the workload in full).
func init() { findings.RegisterDescriber(schedule.Name, findings.Describe(findingSetup, findingSteps)) }

func findingSetup(o schedule.Options, _ bool) string {
	return fmt.Sprintf("%s; %s; %s.", streams(o), schedulers(o), readers(o))
}

func findingSteps(o schedule.Options, _ bool) string {
	return fmt.Sprintf("create %s; run %s; and %s", streams(o), schedulers(o), readers(o))
}

func streams(o schedule.Options) string {
	s := fmt.Sprintf("stream `%s` (subjects `%s.>`, %d replicas, file storage, `allow_msg_schedules: true`, `allow_rollup_hdrs: true`",
		o.Stream, o.Stream, o.Replicas)
	if o.Retention == schedule.RetentionWorkQueue {
		return s + fmt.Sprintf(", work-queue retention) and stream `%s` (%d replicas) sourcing `%s` from it",
			o.Targets(), o.Replicas, o.TargetSubject(">"))
	}
	return s + ")"
}

func schedulers(o schedule.Options) string {
	s := fmt.Sprintf("%d scheduler(s) on each node, each on its own connection, publishing one-shot schedules `%s` with "+
		"`Nats-Schedule: @at <now + %s, on a whole second>` and `Nats-Schedule-Target: %s`, one every %s",
		o.Clients, o.ScheduleSubject("o<client>-<n>"), o.Ahead, o.TargetSubject("o<client>-<n>"), o.Pause)
	if o.Repeating > 0 {
		s += fmt.Sprintf(", beside %d repeating schedules `%s` with `Nats-Schedule: @every %s`, purged at the end",
			o.Repeating, o.ScheduleSubject("r<k>"), o.Every)
	}
	return s
}

func readers(o schedule.Options) string {
	return fmt.Sprintf("an ordered consumer reading `%s` from `%s` as it fires; after the heal, the targets read back from the leader "+
		"and every replica's copy of `%s` read through a consumer placed on it", o.TargetSubject(">"), o.Targets(), o.Stream)
}
