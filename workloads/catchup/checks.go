package catchup

// Names of the checks a catch-up cell is judged by (CheckMemory and
// CheckSlope are with theirs), and the keys of their counts the report's
// catch-up view reads: checks_test.go keeps them in step with buildChecks,
// so a rename fails a test rather than a page silently.
const (
	CheckOOMKill       = "oom-kill"
	CheckCrashLoop     = "crash-loop"
	CheckCatchUp       = "catch-up"
	CheckReplicasAgree = "replicas-agree"
	CheckAckedPresent  = "acked-present"

	CountOOMKills   = "oom_kills"   // oom-kill: OOM kills over all nodes
	CountCrashLoops = "crash_loops" // crash-loop: nodes in a crash loop
	CountCompleted  = "completed"   // catch-up: 1 when the target was current
	CountCatchUpMs  = "ms"          // catch-up: restart to current, or to giving up
	CountAcked      = "acked"       // acked-present: acknowledged ids
	CountMissing    = "missing"     // acked-present: of them, not read back
	CountDuplicates = "duplicates"  // acked-present: ids stored more than once
	CountMalformed  = "malformed"   // acked-present: messages without a valid id
)
