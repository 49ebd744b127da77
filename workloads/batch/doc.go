// Package batch is the atomic batch workload, `--workload batch`:
// producers on every node publish batches of messages that JetStream must
// store all or nothing (ADR-50, nats-server 2.12+, a stream with
// AllowAtomicPublish), and checks hold the stream and its readers to it.
//
//   - Producers (producer.go) try every kind of batch through orbit.go's
//     batch publisher, in a Mix: committed, committed expecting a wrong
//     last sequence (refused, 10071), abandoned before the commit, holding
//     a Nats-Msg-Id already stored (refused, 10201); and plain messages
//     published on their own between them, retried under their
//     Nats-Msg-Id (KindPlain: lost, unexpected and duplicate messages).
//   - Readers on every node: an ordered consumer over the whole stream,
//     and, with Direct Get on, multi-subject reads (a batch direct get of
//     every subject up to the highest acknowledged batch).
//   - Every batch, delivery and read is an op in history.jsonl (ops.go);
//     after the heal the stream is read back (ReadBackFile).
//   - Two checks over plain data: batch-atomic (Atomic) holds the stream
//     to all or nothing, batch-isolation (Isolation) holds the readers to
//     never seeing part of a batch, and a multi-subject read to a state
//     the stream was in (a read answered 404 No Results by a replica
//     behind the sequence asked is a stale read, the known anomaly
//     NoResults). Check runs both on a stored cell, and replica-divergence
//     (checker/replicas) on every server's copy read after the heal.
//
// A server before API level 2 is refused: before anything starts when
// --server-version names it (Plan.Since), at setup by the level it
// reports otherwise; on a cluster the run did not start, also before
// anything starts, by the versions its servers report.
//
// What the check relies on, measured on nats-server 2.15.3 (four
// producers committing batches of 1 to 9 messages with plain publishes in
// between, 200 batches): a committed batch occupies consecutive stream
// sequences in the order it was added, and its commit's ack names the
// sequence of its last message; a batch holding a Nats-Msg-Id already
// stored is refused whole (10201, "atomic publish batch contains duplicate
// message id"), wherever in the batch the id is.
package batch
