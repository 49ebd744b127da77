// Package all registers every workload. Importing it is how a command gets
// them; a new workload adds one line here. The line imports the
// workload's view package, which imports the workload itself, so the one
// line brings the workload (its flags, settings and checks), its report
// view and its finding classes.
package all

import (
	_ "github.com/jetstream-chaos/jetstream-chaos/workloads/batch/batchview"
	_ "github.com/jetstream-chaos/jetstream-chaos/workloads/catchup/catchupview"
	_ "github.com/jetstream-chaos/jetstream-chaos/workloads/counter/counterview"
	_ "github.com/jetstream-chaos/jetstream-chaos/workloads/kvupdate/kvupdateview"
	_ "github.com/jetstream-chaos/jetstream-chaos/workloads/queue/queueview"
	_ "github.com/jetstream-chaos/jetstream-chaos/workloads/schedule/scheduleview"
	_ "github.com/jetstream-chaos/jetstream-chaos/workloads/sources/sourcesview"
)
