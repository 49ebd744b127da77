package batchview

import (
	"fmt"

	"github.com/jetstream-chaos/jetstream-chaos/findings"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/batch"
)

// A batch cell's settings in a finding's words (see package batch's doc
// for the workload in full).
func init() { findings.RegisterDescriber(batch.Name, findings.Describe(findingSetup, findingSteps)) }

func findingSetup(o batch.Options, directGet bool) string {
	dg := "off, so no multi-subject reads"
	if directGet {
		dg = "on"
	}
	return fmt.Sprintf("stream `%s` on `%s.>`, %d replicas, file storage, `AllowAtomicPublish`, Direct Get %s. "+
		"%s; %s; readers on every node: an ordered consumer over the whole stream%s.",
		o.Stream, o.Stream, o.Replicas, dg, producers(o), refused(o.Mix), snapshots(directGet))
}

func findingSteps(o batch.Options, directGet bool) string {
	return fmt.Sprintf("create stream `%s` (subjects `%s.>`, %d replicas, `allow_atomic: true`, `allow_direct: %v`); "+
		"run %s; %s; and on every node an ordered consumer over the whole stream%s",
		o.Stream, o.Stream, o.Replicas, directGet, producers(o), refused(o.Mix), snapshots(directGet))
}

func producers(o batch.Options) string {
	return fmt.Sprintf("%d %s on each node, each on its own connection, publishing atomic batches of %d messages "+
		"(orbit.go `jetstreamext`: the batch publisher's Add, then Commit) over %d subjects in turn, every message "+
		"naming its batch and its place in it in headers; a commit unanswered within 5 s is indeterminate",
		o.Producers, plural(o.Producers, "producer", "producers"), o.BatchSize, o.Subjects)
}

func refused(m batch.Mix) string {
	return fmt.Sprintf("in a hundred batches, %d committed expecting a last sequence the stream is past, "+
		"%d holding a `Nats-Msg-Id` already stored, and %d never committed (at most one a producer in 10 s)",
		m.WrongLastSeq, m.DuplicateID, m.Abandoned)
}

func snapshots(directGet bool) string {
	if !directGet {
		return ""
	}
	return ", and a loop of batch direct gets of every subject's last message up to the highest acknowledged batch " +
		"(orbit.go `jetstreamext.GetLastMsgsFor` with `GetLastMsgsUpToSeq`)"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
