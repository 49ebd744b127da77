// Package partitionheal reproduces a nats-server anomaly the toolkit met
// under its partition-leader fault: after an R3 stream's leader is cut
// from the other two servers and joined again, the deposed leader stays
// behind for over 90 s, logging "Expected first catchup entry to be a
// snapshot and peerstate, will retry", while a cut follower catches up in
// seconds. The test runs three servers of the nats-server module in
// go.mod in process, their routes through links it can cut; README.md is
// the report to file upstream and says how to run it against a server
// branch.
package partitionheal
