// Package all registers every workload. Importing it is how a command gets
// them; a new workload adds one line here.
package all

import (
	_ "github.com/jetstream-chaos/jetstream-chaos/workloads/catchup"
	_ "github.com/jetstream-chaos/jetstream-chaos/workloads/kvupdate"
	_ "github.com/jetstream-chaos/jetstream-chaos/workloads/queue"
)
