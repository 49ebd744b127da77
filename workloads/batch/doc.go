// Package batch is the atomic batch workload under construction: producers
// publish batches of messages that JetStream must store all or nothing
// (ADR-50, nats-server 2.12+, a stream with AllowAtomicPublish), and
// checks hold the stream to it.
//
// What is here so far:
//   - two checks over plain data (the batches the producers tried, Batch;
//     the messages read back, Stored; what the readers' ordered consumers
//     delivered, Delivery): batch-atomic (Atomic) holds the stream to all
//     or nothing, batch-isolation (Isolation) holds the readers to never
//     seeing part of a batch; Check runs both on a stored cell's files;
//   - a producer of every kind of batch through orbit.go's batch publisher,
//     with a Mix of kinds; readers with ordered consumers, and multi-subject
//     reads (a batch direct get of every subject up to the highest
//     acknowledged batch); the ops they record (batch, batch-read,
//     batch-snap); the read-back of the stream;
//   - an instance (setup, Run, Finish, Close) tested on an in-process
//     server.
//
// Still to come: its flags and Settings (with a Direct Get axis for the
// multi-subject reads), refusing servers before API level 2, the
// registration, its view and finding classes, the lost, unexpected and
// duplicate checks and replica divergence, and runs on real clusters
// under faults. Until then no `--workload batch` exists.
//
// What the check relies on, measured on nats-server 2.15.3 (four
// producers committing batches of 1 to 9 messages with plain publishes in
// between, 200 batches): a committed batch occupies consecutive stream
// sequences in the order it was added, and its commit's ack names the
// sequence of its last message; a batch holding a Nats-Msg-Id already
// stored is refused whole (10201, "atomic publish batch contains duplicate
// message id"), wherever in the batch the id is.
package batch
