// Package queue is the queue workload: producers publish unique values to
// an R3 stream, consumers read and acknowledge them, a final drain reads
// everything still pending after the heal, and the checkers look for lost,
// unexpected, duplicated and reordered messages, for delivery counts the
// acks do not explain, for broken work-queue semantics, stalls, and a
// stream that disagrees with what it acknowledged (after Jepsen's NATS
// queue workload).
//
// Producers (--producers, spread over the nodes) publish p<i>-1, p<i>-2,
// ... to queue.p<i> (the stream's name in lower case, then p<i>; the
// stream is QUEUE unless the run names it), one at a time, each with its value as Nats-Msg-Id; a
// publish that fails or times out is retried with the same id. Consumers
// are durable pull consumers with explicit ack (--consumers, each read by
// --workers workers on different nodes, each delivering the whole stream)
// or, with --consumer-pattern ordered, nats.go's ordered push consumers.
// Workers ack with AckSync or a plain Ack (--ack), and nak or skip a
// fraction of deliveries (--nak-rate, --skip-rate) so naks and ack-wait
// redeliveries are exercised. A sampler records each consumer's pending
// counts once a second.
//
// # History
//
// Every op goes to history.jsonl as a history.Op with the common fields
// (client, node, type, outcome, error, invoke, complete) and the queue's
// own in its data (Msg; which fields an op carries is by its type):
//
//	type           data                                              outcome
//	publish        producer, value, attempt (1..), seq (the PubAck)  ok (err "duplicate" when the PubAck said Duplicate), fail, info
//	fetch          consumer, got (messages)                          ok, fail
//	deliver        consumer, value, seq, delivered, consumer_seq     ok (invoke: its Fetch's invoke; an ordered delivery is zero-length)
//	ack, nak       consumer, value, seq, delivered                   info when sent (fire-and-forget), fail
//	ack-sync       consumer, value, seq, delivered                   ok (the server replied), info, fail
//	consumer-info  consumer, leader, pending, ack_pending,           ok, fail (ordered: pending is the stream's last sequence
//	               redelivered                                       minus the last delivered)
//	run            -                                                 ok: the run's workers were active
//	drain          consumer, pending, ack_pending (what was left)    ok: nothing pending; info: gave up
//	stream-info    stream, leader, last_seq, first_seq, msgs         ok, fail
//
// Clients are numbered by role (producers from 0, pull workers from 1000,
// ordered subscriptions 2000, samplers 3000, drains 4000, the read-back
// 5000) so each op names who did it. Cells stored before ops were typed
// reused kv-update's fields instead (key, value, rev, expected_rev,
// err_seq); Load reads them as before (legacyMsg holds the table).
// Fault windows are the nemesis's own ops. All times are from the run's
// monotonic clock; A precedes B only if A.complete < B.invoke.
//
// # Files
//
// A cell also writes queue.json (the settings the checkers need: Check is
// given only the cell's folder), stream.jsonl (the stream read back from
// the leader after the drain: Key the producer, Value the payload) and
// queue.csv (per second: publishes, deliveries, redeliveries, acks, naks,
// delivery latency percentiles, each consumer's pending, faults).
//
// # Checkers
//
// lost, unexpected, duplicate, order, redelivery (pull only), workqueue
// (work-queue retention only), stall and stream-integrity; each file
// check_*.go states its rules and the nats-server or nats.go behaviour
// they rest on. testdata/ holds a stored cell per rule with the anomaly,
// and clean ones with ties and zero-length ops.
package queue
