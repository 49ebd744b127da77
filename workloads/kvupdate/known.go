package kvupdate

import (
	"github.com/jetstream-chaos/jetstream-chaos/checker/kvcheck"
	"github.com/jetstream-chaos/jetstream-chaos/record"
)

// kv-update's known anomaly for --expect: the seed's stale reads, which a
// nightly run keeps as a positive control in its Direct Get on cells
// ("*direct-get-on=stale-reads").
func init() {
	record.RegisterAnomaly(record.KnownAnomaly{
		Name: "stale-reads",
		Doc: "Direct Get stale reads: followers answer gets with an older revision; the session, stale-read " +
			"and linearizability checkers fail, wrong-last-seq fails only with rejections caused by stale reads " +
			"(a spurious 10164, the leader refusing while a write is in flight, is no anomaly and fails nothing), " +
			"and deletes only with resurrected reads (stale reads of a deleted key)",
		Explains: staleReadsExplain,
		Found:    staleReadsFound,
		Witness:  kvcheck.NameStaleRead,
	})
}

func staleReadsFound(m record.Checks) bool {
	return m.Count(kvcheck.NameStaleRead, kvcheck.CountStaleReads) > 0
}

// staleReadsExplain says which invalid checks stale reads account for.
func staleReadsExplain(m record.Checks, check string) bool {
	switch check {
	case kvcheck.NameStaleRead, kvcheck.NameSession, kvcheck.NameLinearizability:
		return staleReadsFound(m)
	case kvcheck.NameAttribution:
		// Only a spurious 10071 fails the check besides stale reads; a
		// spurious 10164 is counted but is no anomaly (Attribution's doc),
		// so it must not keep the control red.
		return staleReadsFound(m) && m.Count(kvcheck.NameAttribution, kvcheck.CountRejectedSpurious+"_10071") == 0 &&
			m.Count(kvcheck.NameAttribution, kvcheck.CountUnattributed) == 0
	case kvcheck.NameDeletes:
		return staleReadsFound(m) && onlyResurrectedReads(m)
	}
	return false
}

// onlyResurrectedReads: of the deletes check's anomalies, the cell shows
// resurrected reads at most (a get after an acknowledged delete returning
// the deleted value: a stale read of a deleted key), none of those no stale
// read explains (a value surviving its delete in the read-back, a create
// over a live key).
func onlyResurrectedReads(m record.Checks) bool {
	for _, k := range kvcheck.DeletesAnomalies() {
		if k != kvcheck.CountResurrectedRead && m.Count(kvcheck.NameDeletes, k) > 0 {
			return false
		}
	}
	return true
}
