package batch

import "github.com/jetstream-chaos/jetstream-chaos/record"

// NoResults is the batch workload's known anomaly for --expect: a batch
// direct get answered "404 No Results" by a replica behind the sequence
// asked (nats-server's file store answers so past its last sequence; see
// repro/multilastbeyond). A nightly run keeps it as a positive control in
// its Direct Get on cells ("*direct-get-on=multi-last-no-results").
const NoResults = "multi-last-no-results"

func init() {
	record.RegisterAnomaly(record.KnownAnomaly{
		Name: NoResults,
		Doc: "batch direct gets answered 404 No Results though the subjects held messages (a replica behind the sequence " +
			"asked, on a file store); batch-isolation fails with no_results and nothing else",
		Explains: noResultsExplain,
		Found:    noResultsFound,
		Witness:  CheckIsolation,
	})
}

func noResultsFound(m record.Checks) bool { return m.Count(CheckIsolation, "no_results") > 0 }

// noResultsExplain: batch-isolation's invalid verdict, when no_results is
// all it found.
func noResultsExplain(m record.Checks, check string) bool {
	if check != CheckIsolation || !noResultsFound(m) {
		return false
	}
	for _, k := range []string{"interleaved", "saw_partial", "unknown_batch", "mixed", "beyond", "missing"} {
		if m.Count(CheckIsolation, k) > 0 {
			return false
		}
	}
	return true
}
