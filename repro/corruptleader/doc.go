// Package corruptleader reproduces a nats-server anomaly the toolkit met
// under its bitflip and member-replace faults: when the leader of an R3
// file stream holds a message that fails its checksum, a new replica can
// never catch up. The leader answers every catch-up request with "Error
// loading message for catchup ... invalid checksum" and stays leader, the
// new replica's /healthz says "stream catching up" for as long as one
// watches, and meanwhile the leader's stream info calls that replica
// current with no lag. The test runs four servers of the nats-server
// module in go.mod in process; README.md is the report to file upstream
// and says how to run it against a server branch.
package corruptleader
