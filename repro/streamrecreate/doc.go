// Package streamrecreate reproduces a nats-server anomaly the toolkit met
// in its own tests: a file stream deleted and created again under the same
// name can hold the deleted stream's messages. The test runs against the
// nats-server module in go.mod, in process; README.md is the report to
// file upstream and says how to run it against a server branch.
package streamrecreate
