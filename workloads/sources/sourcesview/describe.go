package sourcesview

import (
	"fmt"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/findings"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/sources"
)

// A sources cell's settings in a finding's words (see package sources'
// doc for the workload in full).
func init() { findings.RegisterDescriber(sources.Name, findings.Describe(findingSetup, findingSteps)) }

func findingSetup(o sources.Options, _ bool) string {
	return fmt.Sprintf("%s; %s; %s. %s; %s.", origins(o), mirror(o), sourced(o), producers(o), consumers(o))
}

func findingSteps(o sources.Options, _ bool) string {
	return fmt.Sprintf("create %s; create %s; create %s; run %s; and %s",
		origins(o), mirror(o), sourced(o), producers(o), consumers(o))
}

func origins(o sources.Options) string {
	var names []string
	for n, name := range o.OriginNames() {
		names = append(names, fmt.Sprintf("`%s` (subjects `%s`)", name, o.OriginSubjects(n+1)))
	}
	return fmt.Sprintf("%d origin %s %s, %d replicas, file storage, %s retention, duplicate window %s",
		o.Origins, plural(o.Origins, "stream", "streams"), strings.Join(names, ", "), o.Replicas, o.Retention, window(o))
}

func mirror(o sources.Options) string {
	if o.Mirror() == "" {
		return "no mirror (a work-queue origin gives each message to one sourcing consumer before 2.14)"
	}
	return fmt.Sprintf("mirror `%s` of `%s`, %d replicas", o.Mirror(), o.Origin(1), o.Replicas)
}

func sourced(o sources.Options) string {
	t := "no subject transform"
	if o.Transform {
		t = fmt.Sprintf("each source with the subject transform `%s` -> `%s`", o.OriginSubjects(1), o.SourcedSubject(o.OriginSubjects(1)))
	}
	return fmt.Sprintf("stream `%s` sourcing every origin (%s), %d replicas, duplicate window %s", o.Sourced(), t, o.Replicas, window(o))
}

func producers(o sources.Options) string {
	s := fmt.Sprintf("%d producers per origin (%.0f publishes/s in all), each publishing unique bodies with a `Nats-Msg-Id`, "+
		"retried under that id up to %d times when a publish times out (%s each)", o.Producers, o.Rate, o.PublishRetries, o.PublishTimeout.D())
	if o.RepeatIDs {
		s += fmt.Sprintf(", and every %dth publish reusing an earlier `Nats-Msg-Id` of its producer once 3 duplicate windows have passed", sources.RepeatEvery)
	}
	return s
}

func consumers(o sources.Options) string {
	return fmt.Sprintf("%d durable pull consumers of `%s` (explicit ack, deliver all), each read by workers on every node that "+
		"fetch, AckSync, and nak or skip a few deliveries; after the heal every consumer is drained", o.Consumers, o.Sourced())
}

func window(o sources.Options) string { return o.Window().D().String() }

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
