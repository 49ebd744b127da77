package queueview

import (
	"github.com/jetstream-chaos/jetstream-chaos/findings"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/queue"
)

// The queue checks' anomaly kinds as finding.md sections (the kinds and
// their rules are in the queue package's check_*.go). The kinds a check
// counts as unsure (unconfirmed, undrained, ..._or_exhausted) are not
// listed: they make a check unknown, never a finding.
func init() {
	findings.RegisterClasses(
		findings.Class{Check: queue.CheckLost, Kind: "lost", Slug: "queue-lost-message", Rank: 0, Promise: promiseAck,
			Title: "An acknowledged message was never delivered and is not in the stream"},
		findings.Class{Check: queue.CheckIntegrity, Kind: "missing_from_stream", Slug: "queue-missing-from-stream", Rank: 0, Promise: promiseAck,
			Title: "An acknowledged or delivered message is missing from the stream"},
		findings.Class{Check: queue.CheckIntegrity, Kind: "sequence_conflict", Slug: "queue-sequence-reused", Rank: 0, Promise: promiseSequence,
			Title: "One stream sequence names two different messages"},
		findings.Class{Check: queue.CheckIntegrity, Kind: "beyond_last_sequence", Slug: "queue-sequence-beyond-last", Rank: 0, Promise: promiseSequence,
			Title: "A message was acknowledged or delivered at a sequence above the stream's last"},
		findings.Class{Check: queue.CheckIntegrity, Kind: "first_sequence", Slug: "queue-first-sequence-moved", Rank: 0, Promise: promiseSequence,
			Title: "The stream's first sequence moved past messages nothing removed"},
		findings.Class{Check: queue.CheckIntegrity, Kind: "out_of_order", Slug: "queue-read-back-out-of-order", Rank: 2, Promise: promiseSequence,
			Title: "The stream read back has its sequences out of order"},
		findings.Class{Check: queue.CheckIntegrity, Kind: "retained", Slug: "queue-retained-after-ack", Rank: 3, Promise: promiseRemoval,
			Title: "A message every consumer acknowledged is still in an interest stream"},
		findings.Class{Check: queue.CheckUnexpected, Kind: "failed_publish_applied", Slug: "queue-failed-publish-stored", Rank: 1, Promise: promiseRefused,
			Title: "A publish the server refused was stored"},
		findings.Class{Check: queue.CheckUnexpected, Kind: "unexpected_delivery", Slug: "queue-unexpected-delivery", Rank: 2, Promise: promiseOnlyPublished,
			Title: "A consumer received a message no producer published"},
		findings.Class{Check: queue.CheckUnexpected, Kind: "unexpected_in_stream", Slug: "queue-unexpected-in-stream", Rank: 2, Promise: promiseOnlyPublished,
			Title: "The stream holds a message no producer published"},
		findings.Class{Check: queue.CheckDuplicate, Kind: "stored_twice", Slug: "queue-stored-twice", Rank: 2, Promise: promiseDedup,
			Title: "One published message (one Nats-Msg-Id) is stored twice"},
		findings.Class{Check: queue.CheckDuplicate, Kind: "after_confirmed_ack", Slug: "queue-delivered-after-ack", Rank: 2, Promise: promiseAckSync,
			Title: "A message was delivered again after its AckSync was confirmed"},
		findings.Class{Check: queue.CheckLost, Kind: "skipped", Slug: "queue-skipped-by-consumer", Rank: 1, Promise: promiseEveryConsumer,
			Title: "A consumer never received a stored message, and reported nothing pending"},
		findings.Class{Check: queue.CheckOrder, Kind: "producer_order", Slug: "queue-producer-order", Rank: 3, Promise: promiseOrder,
			Title: "A producer's acknowledged messages are stored out of publish order"},
		findings.Class{Check: queue.CheckOrder, Kind: "ordered_consumer", Slug: "queue-ordered-consumer-order", Rank: 3, Promise: promiseOrdered,
			Title: "An ordered consumer delivered a sequence not above the one before it"},
		findings.Class{Check: queue.CheckRedelivery, Kind: "beyond_max_deliver", Slug: "queue-beyond-max-deliver", Rank: 4, Promise: promiseRedelivery,
			Title: "A message was delivered more times than the consumer's MaxDeliver"},
		findings.Class{Check: queue.CheckRedelivery, Kind: "count_not_increasing", Slug: "queue-delivery-count-not-increasing", Rank: 4, Promise: promiseRedelivery,
			Title: "A redelivery carried a delivery count not above the one before"},
		findings.Class{Check: queue.CheckRedelivery, Kind: "early", Slug: "queue-redelivered-early", Rank: 4, Promise: promiseRedelivery,
			Title: "A message was redelivered before its ack wait, with no nak or leader change to explain it"},
		findings.Class{Check: queue.CheckRedelivery, Kind: "dropped", Slug: "queue-redelivery-dropped", Rank: 1, Promise: promiseRedelivery,
			Title: "An unacknowledged message was never redelivered"},
		findings.Class{Check: queue.CheckWorkQueue, Kind: "acked_not_removed", Slug: "queue-workqueue-acked-not-removed", Rank: 3, Promise: promiseRemoval,
			Title: "A work-queue message whose AckSync was confirmed is still in the stream"},
		findings.Class{Check: queue.CheckWorkQueue, Kind: "not_removed", Slug: "queue-workqueue-not-removed", Rank: 3, Promise: promiseRemoval,
			Title: "A work-queue stream keeps messages after its consumer drained"},
		findings.Class{Check: queue.CheckWorkQueue, Kind: "concurrent", Slug: "queue-workqueue-two-holders", Rank: 3, Promise: promiseRemoval,
			Title: "Two workers held one work-queue message at once"},
		findings.Class{Check: queue.CheckStall, Kind: "stalled", Slug: "queue-consumer-stalled", Rank: 5, Promise: promiseProgress,
			Title: "A consumer with messages pending stopped delivering after the heal"},
		findings.Class{Check: queue.CheckStall, Kind: "not_drained", Slug: "queue-consumer-not-drained", Rank: 5, Promise: promiseProgress,
			Title: "A consumer could not be drained: messages stayed pending after the heal"},
	)
}

const (
	promiseAck = "A JetStream publish answered with a PubAck (nats.go `js.Publish` returning a sequence) was stored by a " +
		"quorum of the stream's replicas: it stays in a limits stream, and every durable consumer delivers it, through the " +
		"failure and restart of nodes (JetStream docs, \"Message acknowledgement\")."
	promiseSequence = "A stream assigns each stored message one sequence, in the order it stores them, and never reuses or " +
		"withdraws one: the sequence in a PubAck or a delivery's metadata names that message for good (nats-server `stream.go`, " +
		"`processJetStreamMsg`)."
	promiseRefused = "A publish that the server refuses with a JetStream API error stores nothing; a retry under the same " +
		"`Nats-Msg-Id` is deduplicated (nats-server `stream.go`, `processJetStreamMsg`)."
	promiseOnlyPublished = "A stream holds, and a consumer delivers, only what clients published to it."
	promiseDedup         = "Within the stream's duplicate window, a message published again with the same `Nats-Msg-Id` is answered " +
		"as a duplicate and not stored twice (JetStream docs, \"Message deduplication\")."
	promiseAckSync = "A durable consumer's `AckSync` returns once the ack is applied from the consumer's raft log; an acknowledged " +
		"message is no longer pending and is not delivered again (nats-server `consumer.go`, `processAckMsg`; " +
		"`jetstream_cluster.go`, `processReplicatedAckLocked`)."
	promiseEveryConsumer = "A durable consumer with DeliverAll, and an ordered consumer, deliver every message of the stream; " +
		"a consumer reporting nothing pending and nothing awaiting an ack has delivered everything stored."
	promiseOrder = "A stream stores messages in the order it receives them: a message acknowledged before another was even " +
		"sent has the lower sequence."
	promiseOrdered = "An ordered consumer delivers the stream in sequence order, each message once (nats.go " +
		"`jetstream.OrderedConsumer` resets itself on a gap)."
	promiseRedelivery = "A durable pull consumer redelivers an unacknowledged message once its ack wait passes or a nak " +
		"asks for it, up to MaxDeliver times, each delivery counting one more in its metadata (nats-server `consumer.go`)."
	promiseRemoval = "A work-queue stream removes a message once it is acknowledged and hands each message to one worker at " +
		"a time; an interest stream removes a message once every consumer acknowledged it (nats-server `stream.go`, " +
		"WorkQueuePolicy and InterestPolicy)."
	promiseProgress = "Once the cluster is healed, a consumer with messages pending delivers them to the workers that ask."
)
