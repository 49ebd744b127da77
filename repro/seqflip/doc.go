// Package seqflip reproduces a nats-server anomaly the toolkit met under
// its bitflip fault: one bit flipped in the sequence field of one message
// record in a file stream's block makes the server never finish starting.
// Recovering the stream loads the block, reads the record's sequence as a
// jump of 2^46 and fills the "hole" one sequence at a time, so memory
// grows without bound and the server is never ready. The test starts the
// nats-server module in go.mod in a child process it can kill; README.md
// is the report to file upstream and says how to run it against a server
// branch.
package seqflip
