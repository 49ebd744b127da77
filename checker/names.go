package checker

// NameRecovery is the pipeline's own check (run.recoveryCheck) that the
// cluster recovered after the faults, whatever the workload.
const NameRecovery = "recovery"
