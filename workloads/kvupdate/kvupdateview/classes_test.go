package kvupdateview

import (
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/checker/kvcheck"
	"github.com/jetstream-chaos/jetstream-chaos/findings"
)

// findings writes kv-update's classes out by name, since it imports no
// workload (findings/kv.go); this holds them to kvcheck's declarations, so
// a renamed check or kind cannot silently lose its finding section.
func TestFindingClassesNameKVChecksAndKinds(t *testing.T) {
	kinds := map[string][]string{
		kvcheck.NameIntegrity: {kvcheck.CountLostWrite, kvcheck.CountFailedWriteApplied, kvcheck.CountRevMismatch,
			kvcheck.CountDuplicateValue, kvcheck.CountUnexpectedValue, kvcheck.CountUnexpectedTombstone, kvcheck.CountBadRead},
		kvcheck.NameAttribution:     {kvcheck.CountRejectedSpurious, kvcheck.CountRejectedStale},
		kvcheck.NameLinearizability: {kvcheck.KindNonLinearizable},
		kvcheck.NameStaleRead:       {kvcheck.KindStaleRead},
		kvcheck.NameSession:         {kvcheck.KindReadYourWrites, kvcheck.KindMonotonicReads},
	}
	want := map[string]bool{}
	for check, ks := range kinds {
		for _, k := range ks {
			want[check+"/"+k] = true
		}
	}
	got := map[string]bool{}
	for _, c := range findings.Classes() {
		if _, kv := kinds[c.Check]; kv {
			got[c.Check+"/"+c.Kind] = true
		}
	}
	for k := range want {
		if !got[k] {
			t.Errorf("no finding class for %s", k)
		}
	}
	for k := range got {
		if !want[k] {
			t.Errorf("a finding class for %s, which kvcheck does not declare", k)
		}
	}
}
