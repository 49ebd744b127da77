// Package counter is the distributed counter workload under construction:
// clients add to counter subjects of a stream with AllowMsgCounter
// (ADR-49, nats-server 2.12+), each add with a unique Nats-Msg-Id retried
// under the same id when it times out, and checks hold the counters to
// what was acknowledged.
//
// What is here so far: the checks over plain data (the adds the clients
// tried, Add; their reads, Read; each counter's value after the heal,
// Final):
//   - counter-total (Total): each counter equals the sum of its
//     acknowledged adds plus some subset of its indeterminate ones;
//   - counter-dedupe (Dedupe): no add is applied twice; a total that one
//     retried add counted twice explains is that add's anomaly, named;
//   - counter-reads (Reads), for cells whose deltas are all positive: a
//     read never returns less than a total already acknowledged to its
//     own client, or already read by it; through Direct Get that is a
//     stale read, through the leader a broken promise.
//
// Still to come: the clients (adds through a Nats-Incr message with a
// Nats-Msg-Id, as orbit.go's counters package writes them, since its Add
// takes no id; reads through every node, with Direct Get and from the
// leader), the ops, the instance, the flags and the registration, and the
// replicas' values read on their own servers.
package counter
