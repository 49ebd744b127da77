package queueview

import (
	"fmt"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/findings"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/queue"
)

// A queue cell's settings in a finding's words (see package queue's doc
// for the workload in full).
func init() { findings.RegisterDescriber(queue.Name, findings.Describe(findingSetup, findingSteps)) }

func findingSetup(o queue.Options, directGet bool) string {
	stream, subjects := o.StreamAndSubjects()
	dg := "off"
	if directGet {
		dg = "on"
	}
	s := fmt.Sprintf("stream `%s` on `%s`, %d replicas, file storage, %s retention, duplicate window %s, Direct Get %s. ",
		stream, subjects, o.Replicas, o.Retention, o.DuplicateWindow.D(), dg)
	s += fmt.Sprintf("%d producers, spread over the nodes, each publishing unique values one at a time with the value as `Nats-Msg-Id`, "+
		"retrying a failed or unanswered publish with the same id (up to %d times, %s each)",
		o.Producers, o.PublishRetries, o.PublishTimeout.D())
	if o.Rate > 0 {
		s += fmt.Sprintf(", %.0f publishes/s in all", o.Rate)
	}
	return s + "; " + consumers(o) + "; after the heal, a drain reads what every consumer has left."
}

func findingSteps(o queue.Options, _ bool) string {
	stream, subjects := o.StreamAndSubjects()
	return fmt.Sprintf("create stream `%s` (subjects `%s`, %d replicas, %s retention, duplicate window %s); "+
		"run %d producers publishing unique values, each with its value as `Nats-Msg-Id` and retried with the same id when it fails or goes unanswered, and %s",
		stream, subjects, o.Replicas, o.Retention, o.DuplicateWindow.D(), o.Producers, consumers(o))
}

// consumers says how the cell consumed: pull workers and how they ack,
// or ordered consumers.
func consumers(o queue.Options) string {
	if o.Pattern == queue.Ordered {
		return fmt.Sprintf("%d %s (nats.go's ordered consumer: ephemeral, no acks), each reading the whole stream",
			o.Consumers, plural(o.Consumers, "ordered push consumer", "ordered push consumers"))
	}
	ack := "`msg.Ack()` (fire-and-forget)"
	if o.Ack == queue.Sync {
		ack = "`msg.DoubleAck()` (the server confirms the ack)"
	}
	s := fmt.Sprintf("%d %s with explicit ack (ack wait %s, max deliver %s), each read by %d workers on different nodes "+
		"fetching up to %d messages at a time and acking each with %s",
		o.Consumers, plural(o.Consumers, "durable pull consumer", "durable pull consumers"), o.AckWait.D(), maxDeliver(o.MaxDeliver), o.Workers, o.Batch, ack)
	var extra []string
	if o.NakRate > 0 {
		extra = append(extra, fmt.Sprintf("naking %.0f%% of deliveries", 100*o.NakRate))
	}
	if o.SkipRate > 0 {
		extra = append(extra, fmt.Sprintf("leaving %.0f%% unacknowledged, to be redelivered after the ack wait", 100*o.SkipRate))
	}
	if len(extra) > 0 {
		s += ", " + strings.Join(extra, " and ")
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func maxDeliver(n int) string {
	if n < 0 {
		return "unlimited"
	}
	return fmt.Sprint(n)
}
