// Package queue is the queue workload: producers publish unique values to
// an R3 stream, consumers read and acknowledge them, a final drain reads
// everything still pending after the heal, and the checkers look for lost,
// unexpected, duplicated and reordered messages, for delivery counts the
// acks do not explain, for broken work-queue semantics, stalls, and a
// stream that disagrees with what it acknowledged (after Jepsen's NATS
// queue workload).
//
// Producers (--producers, spread over the nodes) publish p<i>-1, p<i>-2,
// ... to queue.p<i>, one at a time, each with its value as Nats-Msg-Id; a
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
// Every op goes to history.jsonl as a history.Op, its fields reused:
//
//	type           Client           Key       Value     Rev               ExpectedRev     ErrSeq           Outcome
//	publish        producer         producer  value     PubAck sequence   attempt (1..)   -                ok (Err "duplicate" when the PubAck
//	                                                                                                        said Duplicate), fail, info
//	fetch          1000+worker      consumer  -         messages got      -               -                ok, fail
//	deliver        worker or        consumer  payload   stream sequence   delivery count  consumer seq.    ok (invoke: its Fetch's invoke; an
//	               2000+ordered                                           (NumDelivered)                   ordered delivery is zero-length)
//	ack, nak       worker           consumer  value     stream sequence   delivery count  -                info when sent (fire-and-forget), fail
//	ack-sync       worker           consumer  value     stream sequence   delivery count  -                ok (the server replied), info, fail
//	consumer-info  3000/4000+cons.  consumer  leader    NumPending        NumAckPending   NumRedelivered   ok, fail (ordered: Rev is the stream's
//	                                                                                                       last sequence minus the last delivered)
//	run            1000             -         -         -                 -               -                ok: the run's workers were active
//	drain          4000+consumer    consumer  -         NumPending left   NumAckPending   -                ok: nothing pending; info: gave up
//	stream-info    5000             stream    leader    last sequence     messages        first sequence   ok, fail
//
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
