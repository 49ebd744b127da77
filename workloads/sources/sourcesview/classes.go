// Package sourcesview is the sources workload's part of the report and of
// finding.md: its finding classes, its settings in a bug report's words,
// and on the generic page each copy's lag over time with the fault windows
// and the copy graph with counts on its edges (view.go).
package sourcesview

import (
	"github.com/jetstream-chaos/jetstream-chaos/findings"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/sources"
)

// The sources checks' anomaly kinds as finding.md sections (the kinds and
// their rules are in the sources package's check_*.go). The consumers'
// kinds are the queue workload's classes. Kinds a check counts as unsure
// (unread, unsampled, replicas_unread) make it unknown, never a finding.
func init() {
	findings.RegisterClasses(
		findings.Class{Check: sources.CheckMirror, Kind: "missing", Slug: "mirror-missing-message", Rank: 0, Promise: promiseMirror,
			Title: "A mirror lacks a message its origin holds"},
		findings.Class{Check: sources.CheckMirror, Kind: "different", Slug: "mirror-different-message", Rank: 0, Promise: promiseMirror,
			Title: "A mirror holds another message than its origin at the same sequence"},
		findings.Class{Check: sources.CheckMirror, Kind: "extra", Slug: "mirror-extra-message", Rank: 1, Promise: promiseMirror,
			Title: "A mirror holds a message at a sequence its origin does not hold"},
		findings.Class{Check: sources.CheckSource, Kind: "origin_lost", Slug: "origin-lost-acknowledged", Rank: 0, Promise: promiseAck,
			Title: "An origin stream lost an acknowledged message"},
		findings.Class{Check: sources.CheckSource, Kind: "missing", Slug: "source-missing-message", Rank: 0, Promise: promiseSource,
			Title: "A sourcing stream never received a message its origin holds"},
		findings.Class{Check: sources.CheckSource, Kind: "duplicate", Slug: "source-duplicate-message", Rank: 1, Promise: promiseSource,
			Title: "A sourcing stream holds one origin message twice"},
		findings.Class{Check: sources.CheckSource, Kind: "out_of_order", Slug: "source-out-of-order", Rank: 2, Promise: promiseSource,
			Title: "A sourcing stream holds an origin's messages out of the origin's order"},
		findings.Class{Check: sources.CheckWorkQueue, Kind: "removed_undelivered", Slug: "workqueue-origin-removed-unsourced", Rank: 0, Promise: promiseWorkQueue,
			Title: "A work-queue origin removed a message its sourcing stream never received"},
		findings.Class{Check: sources.CheckWorkQueue, Kind: "replicas_disagree", Slug: "workqueue-origin-replicas-disagree", Rank: 1, Promise: promiseWorkQueue,
			Title: "A work-queue origin's replicas disagree on what was removed"},
		findings.Class{Check: sources.CheckStall, Kind: "stalled", Slug: "source-stalled", Rank: 3, Promise: promiseStall,
			Title: "A mirror or sourcing stream stopped copying after the heal while in contact with its origin"},
		findings.Class{Check: sources.CheckStall, Kind: "silent", Slug: "source-silent", Rank: 3, Promise: promiseStall,
			Title: "A mirror or sourcing stream heard nothing from its origin for longer than the server's longest retry backoff"},
	)
}

const (
	promiseMirror = "A mirror stores each message of its origin at the origin's sequence and skips the sequences the origin " +
		"no longer holds (nats-server `server/stream.go`, `processInboundMirrorMsg`, `skipMsgs`; JetStream docs, \"Source and Mirror " +
		"Streams\"): once it has caught up, it holds the origin's messages, no more and no fewer."
	promiseAck = "A PubAck means the message is stored on a quorum of the stream's replicas (nats.go `jetstream` `Publish`; " +
		"JetStream docs, \"Message acknowledgement\"), and a stream with limits retention and no limits set removes nothing."
	promiseSource = "A stream that sources another copies each of its messages once, in the origin's order: it tracks the last " +
		"origin sequence it stored per source and asks for the next one after a restart or a leader change (nats-server " +
		"`server/stream.go`, `processInboundSourceMsg`, `startingSequenceForSources`; JetStream docs, \"Source and Mirror Streams\")."
	promiseWorkQueue = "A work-queue stream removes a message once a consumer took it; the sourcing consumer is such a " +
		"consumer, so what the origin removed was delivered to the sourcing stream (nats-server `server/consumer.go`; issue 4109), " +
		"and every replica removes it, not only the leader (issue 5450)."
	promiseStall = "A mirror or sourcing stream retries its origin until it is reachable again and then copies what it missed: " +
		"every 10 s (`sourceHealthCheckInterval`) its leader recreates the consumer of a source it heard nothing from, message " +
		"or heartbeat, for that long, from the last origin sequence it stored (nats-server `server/stream.go`, " +
		"`processAllSourceMsgs`, `processMirrorMsgs`). So once the cluster has healed a copy catches up without an operator " +
		"stepping its leader down (upstream reports of copies stale until a step-down: nats-server PR 8323's thread, PR 5496)."
)
