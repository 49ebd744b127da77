// Package counterview is the counter workload's part of the report and of
// finding.md: its finding classes and its settings in a bug report's
// words, and one chart on the generic page (view.go): how far reads were
// below the highest total already acknowledged, by path.
package counterview

import (
	"github.com/jetstream-chaos/jetstream-chaos/findings"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/counter"
)

// The counter checks' anomaly kinds as finding.md sections (the kinds and
// their rules are in the counter package's check_*.go). The kinds a check
// counts as unsure (unread, undecidable) are not listed: they make a
// check unknown, never a finding.
func init() {
	findings.RegisterClasses(
		findings.Class{Check: counter.CheckTotal, Kind: "off", Slug: "counter-total-off", Rank: 0, Promise: promiseTotal,
			Title: "A counter's total is not the sum of the adds made to it"},
		findings.Class{Check: counter.CheckTotal, Kind: "refused_counted", Slug: "counter-refused-add-counted", Rank: 0, Promise: promiseTotal,
			Title: "A counter add the server answered with a refusal was counted"},
		findings.Class{Check: counter.CheckDedupe, Kind: "applied_twice", Slug: "counter-add-applied-twice", Rank: 0, Promise: promiseDedupe,
			Title: "A counter add retried under its Nats-Msg-Id was applied twice"},
		findings.Class{Check: counter.CheckReads, Kind: "read_your_writes", Slug: "counter-read-below-own-add", Rank: 1, Promise: promiseReads,
			Title: "A counter read from the leader returned less than the client's own acknowledged total"},
		findings.Class{Check: counter.CheckReads, Kind: "monotonic", Slug: "counter-read-went-back", Rank: 1, Promise: promiseReads,
			Title: "A counter read from the leader returned less than the client had read before"},
		findings.Class{Check: counter.CheckReads, Kind: "behind_direct", Slug: "counter-leader-behind-direct-read", Rank: 2, Promise: promiseBehindDirect,
			Title: "A counter read from the leader returned less than a read through Direct Get had returned before"},
		findings.Class{Check: counter.CheckReads, Kind: "stale_read", Slug: "counter-stale-direct-read", Rank: 2, Promise: promiseDirect,
			Title: "A counter read through Direct Get returned less than the client had been told or had read"},
	)
}

const (
	promiseTotal = "A stream with `AllowMsgCounter` sums the `Nats-Incr` of every add it stores into the counter's value, " +
		"and the PubAck of an add names the total after it: an acknowledged add is counted once, a refused one never " +
		"(ADR-49; nats-server `server/stream.go`)."
	promiseDedupe = "An add published again with the same `Nats-Msg-Id` within the duplicate window is answered as a " +
		"duplicate and not counted again (ADR-49: deduplication applies to counters; JetStream docs, \"Message deduplication\")."
	promiseReads = "A counter whose adds are all positive only grows; the stream's leader answers a get with its latest " +
		"value, so a client reading from the leader sees at least what it was told (its add's PubAck) or read before."
	promiseDirect = "Direct Get lets any replica answer a read (ADR-31), so a follower behind the leader may answer with " +
		"an older value: a read of a counter through Direct Get is not guaranteed to see the client's own acknowledged add."
	promiseBehindDirect = "Direct Get lets any replica answer a read (ADR-31), and a replica applies an add once it learns " +
		"it is committed, which can be before the leader has applied it: a client that reads through Direct Get and then " +
		"from the leader can see its counter go back, though each path on its own only grows."
)
