// Package counter is the distributed counter workload, `--workload
// counter`: clients add to counter subjects of a stream with AllowMsgCounter
// (ADR-49, nats-server 2.12+), each add with a unique Nats-Msg-Id retried
// under the same id when it times out, and checks hold the counters to
// what was acknowledged.
//
// The checks, over plain data (the adds the clients
// tried, Add; their reads, Read; each counter's value after the heal,
// Final):
//   - counter-total (Total): each counter equals the sum of its
//     acknowledged adds plus some subset of its indeterminate ones;
//   - counter-dedupe (Dedupe): no add is applied twice; a total that one
//     retried add counted twice explains is that add's anomaly, named;
//   - counter-reads (Reads), for cells whose deltas are all positive: a
//     read never returns less than a total already acknowledged to its
//     own client, or already read by it; through Direct Get that is a
//     stale read, through the leader a broken promise;
//   - replica-divergence (checker/replicas): after the heal every
//     server's copy holds the same adds with the same running totals.
//
// The clients: adders on every node, each add a Nats-Incr message with
// a Nats-Msg-Id (as orbit.go's counters package writes them; its Add
// takes no id), retried under that id; readers on every node, through
// Direct Get and from the leader by turns. Ops counter-add and
// counter-read; an instance (setup, Run, Finish storing FinalFile, Close)
// and Check on a stored cell, tested on an in-process server.
//
// Verified on nats-server 2.15.3: an add's PubAck names the counter's
// total after it (its Value); an add repeated under its Nats-Msg-Id is
// answered as a duplicate with no Value; a counter's message body is
// {"val":"N"}; an expected-last-sequence header on an add is refused
// (10171).
//
// A server before API level 2 is refused: before anything starts when
// --server-version names it (Plan.Since), at setup by the level it
// reports otherwise; on a cluster the run did not start, also before
// anything starts, by the versions its servers report.
package counter
