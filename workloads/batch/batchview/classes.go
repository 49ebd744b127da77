// Package batchview is the batch workload's part of the report and of
// finding.md: its finding classes and its settings in a bug report's
// words, and one chart on the generic page (view.go): the multi-subject
// reads answered each second, with messages or 404 No Results.
package batchview

import (
	"github.com/jetstream-chaos/jetstream-chaos/findings"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/batch"
)

// The batch checks' anomaly kinds as finding.md sections (the kinds and
// their rules are in the batch package's check_*.go). The kinds a check
// counts as unsure (unread, malformed_batch) are not listed: they make a
// check unknown, never a finding.
func init() {
	a, iso := batch.CheckAtomic, batch.CheckIsolation
	findings.RegisterClasses(
		findings.Class{Check: a, Kind: "partial", Slug: "batch-stored-in-part", Rank: 0, Promise: promiseAtomic,
			Title: "An atomic batch is stored in part"},
		findings.Class{Check: a, Kind: "acknowledged_absent", Slug: "batch-acknowledged-absent", Rank: 0, Promise: promiseAtomic,
			Title: "An acknowledged atomic batch is not in the stream"},
		findings.Class{Check: a, Kind: "refused_stored", Slug: "batch-refused-stored", Rank: 1, Promise: promiseAtomic,
			Title: "An atomic batch the server refused, or that was never committed, is stored"},
		findings.Class{Check: a, Kind: "not_contiguous", Slug: "batch-not-contiguous", Rank: 1, Promise: promiseAtomic,
			Title: "An atomic batch is stored in sequences that are not consecutive"},
		findings.Class{Check: a, Kind: "out_of_order", Slug: "batch-out-of-order", Rank: 1, Promise: promiseAtomic,
			Title: "An atomic batch is stored out of the order its messages were added"},
		findings.Class{Check: a, Kind: "stored_twice", Slug: "batch-message-stored-twice", Rank: 1, Promise: promiseAtomic,
			Title: "A message of an atomic batch is stored twice"},
		findings.Class{Check: a, Kind: "ack_elsewhere", Slug: "batch-ack-names-another-sequence", Rank: 2, Promise: promiseAtomic,
			Title: "An atomic batch's commit ack names a sequence other than its last message's"},
		findings.Class{Check: a, Kind: "unknown_batch", Slug: "batch-unknown-batch-stored", Rank: 2, Promise: promiseOnlyPublished,
			Title: "The stream holds a batch no producer tried"},
		findings.Class{Check: a, Kind: "unknown_message", Slug: "batch-unknown-message-stored", Rank: 2, Promise: promiseOnlyPublished,
			Title: "The stream holds a message that names no batch, which no producer published"},
		findings.Class{Check: iso, Kind: "saw_partial", Slug: "batch-reader-saw-partial", Rank: 0, Promise: promiseIsolation,
			Title: "A reader was delivered part of a batch the stream does not hold whole"},
		findings.Class{Check: iso, Kind: "interleaved", Slug: "batch-reader-interleaved", Rank: 1, Promise: promiseIsolation,
			Title: "A reader was delivered another message in the middle of an atomic batch"},
		findings.Class{Check: iso, Kind: "mixed", Slug: "batch-read-mixed", Rank: 1, Promise: promiseSnapshot,
			Title: "A multi-subject read mixed an atomic batch's messages with older values of its subjects"},
		findings.Class{Check: iso, Kind: "beyond", Slug: "batch-read-beyond-sequence", Rank: 2, Promise: promiseSnapshot,
			Title: "A multi-subject read up to a sequence answered with a message after it"},
		findings.Class{Check: iso, Kind: "missing", Slug: "batch-read-left-out-subject", Rank: 1, Promise: promiseSnapshot,
			Title: "A multi-subject read left out a subject that held a message before the ones it answered"},
		findings.Class{Check: iso, Kind: "no_results", Slug: "batch-read-no-results", Rank: 3, Promise: promiseNoResults,
			Title: "A multi-subject read through Direct Get answered 404 No Results for subjects that held messages"},
		findings.Class{Check: iso, Kind: "unknown_batch", Slug: "batch-unknown-batch-delivered", Rank: 2, Promise: promiseOnlyPublished,
			Title: "A reader was delivered a batch no producer tried"},
	)
}

const (
	promiseAtomic = "A stream with `AllowAtomicPublish` stores an atomic batch all or nothing: once the commit is " +
		"acknowledged, every message of the batch is stored, in consecutive sequences in the order they were added, and " +
		"the ack names the last; a batch the server refuses (a wrong expected last sequence, a duplicate `Nats-Msg-Id`), " +
		"or one never committed, stores nothing (ADR-50; nats-server `server/jetstream_batching.go`)."
	promiseIsolation = "An atomic batch is applied as one: a consumer never delivers part of a batch, and delivers a " +
		"batch's messages one after another, with nothing between them (ADR-50)."
	promiseSnapshot = "A batch direct get of the last message of several subjects up to a sequence reads the stream as it " +
		"was at that sequence: never a message after it, and never part of an atomic batch beside its subjects' older values " +
		"(ADR-31's batched direct get, with ADR-50's atomic batches)."
	promiseNoResults = "A batch direct get answers the last message of each subject asked at or before `up_to_seq`; Direct " +
		"Get lets any replica answer (ADR-31), and one behind the leader may answer with older messages, but \"404 No Results\" " +
		"says no subject asked holds any message at all. A file store asked past its last sequence answers so " +
		"(nats-server `server/filestore.go`, `multiLastSeqsLocked`), where a memory store answers the messages."
	promiseOnlyPublished = "A stream holds, and a consumer delivers, only what clients published to it."
)
