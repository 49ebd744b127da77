// Package multilastbeyond reproduces a nats-server anomaly the toolkit met
// in its batch workload: a batch direct get of several subjects' last
// messages up to a sequence the stream has not reached answers "404 No
// Results" from a file store, while a memory store answers the messages.
// The test runs against the nats-server module in go.mod, in process;
// README.md is the report to file upstream and says how to run it against
// a server branch.
package multilastbeyond
