package kvcheck

// Names of the checkers and the keys of the Counts, Stats and Histograms
// their results carry that readers outside this package look up (the
// reports, kv-update's known anomaly for --expect). They are declared once,
// here, and used where the checkers fill them, so a rename changes both.
const (
	NameSession         = "session"
	NameStaleRead       = "stale-read"
	NameAttribution     = "wrong-last-seq"
	NameIntegrity       = "stream-integrity"
	NameLinearizability = "linearizability"
)

// Counts shared by several checkers.
const (
	CountGets = "gets" // session, stale-read: ok gets judged
	CountKeys = "keys" // stale-read, linearizability
)

// StaleRead's counts, stats and histogram.
const (
	CountStaleReads         = "stale_reads"
	CountKeysWithStaleReads = "keys_with_stale_reads"

	StatStalenessMs   = "staleness_ms"   // prefix of staleness_ms_{p50,p90,p99,max}; the histogram's name
	StatStalenessRevs = "staleness_revs" // prefix of staleness_revs_{p50,p90,p99,max}; the histogram's name

	StatStalenessMsP50   = StatStalenessMs + "_p50"
	StatStalenessMsP99   = StatStalenessMs + "_p99"
	StatStalenessMsMax   = StatStalenessMs + "_max"
	StatStalenessRevsMax = StatStalenessRevs + "_max"
)

// Attribution's counts: every rejection falls in one class; each class is
// also split by error code as <class>_<code> (e.g. spurious_10164).
const (
	CountRejections       = "rejections"
	CountRejectedStale    = "stale_read"
	CountRejectedConcur   = "concurrent_write"
	CountRejectedSpurious = "spurious"
	CountUnattributed     = "unattributed"
)

// Integrity's anomaly counts (always present) and its tally of writes.
const (
	CountLostWrite           = "lost_write"
	CountRevMismatch         = "rev_mismatch"
	CountUnexpectedValue     = "unexpected_value"
	CountFailedWriteApplied  = "failed_write_applied"
	CountDuplicateValue      = "duplicate_value"
	CountUnexpectedTombstone = "unexpected_tombstone"
	CountBadRead             = "bad_read"
	CountCASViolation        = "cas_violation"
	CountAckedWrites         = "acked_writes"
)

// Session's counts.
const (
	CountRYWViolations       = "ryw_violations"
	CountMonotonicViolations = "monotonic_violations"
)

// Linearizability's counts of keys.
const (
	CountKeysIllegal = "keys_illegal"
	CountKeysUnknown = "keys_unknown"
)

// Anomaly kinds (checker.Anomaly.Kind) that are not also a count's name;
// the others are: CountLostWrite, CountRejectedSpurious and so on.
const (
	KindNonLinearizable = "non_linearizable" // linearizability
	KindReadYourWrites  = "read_your_writes" // session
	KindMonotonicReads  = "monotonic_reads"  // session
	KindStaleRead       = "stale_read"       // stale-read
)
