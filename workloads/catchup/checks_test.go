package catchup

import (
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/nemesis"
	"github.com/jetstream-chaos/jetstream-chaos/observe"
)

// The checks carry the names and counts the exported constants say, in
// every shape buildChecks gives them.
func TestCheckNamesAndCounts(t *testing.T) {
	want := []struct {
		name   string
		counts []string
	}{
		{CheckOOMKill, []string{CountOOMKills}},
		{CheckCrashLoop, []string{CountCrashLoops}},
		{CheckCatchUp, []string{CountCompleted, CountCatchUpMs}},
		{CheckMemory, nil},
		{CheckReplicasAgree, nil},
		{CheckAckedPresent, []string{CountAcked, CountMissing, CountDuplicates, CountMalformed}},
	}
	results := map[string]*Result{
		"clean": {Options: Options{MemoryLimit: 1 << 30, CrashLoop: 2}, Target: "n1",
			CatchUp:   CatchUp{Outcome: OutcomeCurrent, Seconds: 4.2},
			Recovery:  &nemesis.Recovery{Recovered: true, Detail: "ok"},
			Integrity: Integrity{Acked: 10, Read: 10, Distinct: 10, Complete: true, ReplicasAgree: true, Replicas: []observe.ReplicaState{{Node: "n1"}}}},
		"oom, crash loop, lost": {Options: Options{MemoryLimit: 1 << 20, CrashLoop: 2}, Target: "n1",
			Deaths:    []observe.Deaths{{Node: "n1", OOMKills: 3, Restarts: 3, Deaths: 3, CrashLoop: true}},
			CatchUp:   CatchUp{Outcome: OutcomeCrashLoop, Seconds: 8},
			Integrity: Integrity{Acked: 10, Read: 9, Distinct: 9, Missing: 1, Complete: true}},
		"cut short": {},
	}
	for shape, r := range results {
		checks := buildChecks(r)
		if len(checks) != len(want) {
			t.Fatalf("%s: %d checks, want %d", shape, len(checks), len(want))
		}
		for i, w := range want {
			c := checks[i]
			if c.Name != w.name {
				t.Errorf("%s: check %d is %q, want %q", shape, i, c.Name, w.name)
			}
			for _, k := range w.counts {
				if _, ok := c.Counts[k]; !ok {
					t.Errorf("%s: %s lacks count %q (has %v)", shape, c.Name, k, c.Counts)
				}
			}
		}
		if shape == "oom, crash loop, lost" {
			if n := checks[0].Counts[CountOOMKills]; n != 3 || checks[0].Verdict != checker.Invalid {
				t.Errorf("oom-kill counts %d OOM kills, verdict %s", n, checks[0].Verdict)
			}
			if n := checks[5].Counts[CountMissing]; n != 1 {
				t.Errorf("acked-present counts %d missing", n)
			}
		}
	}
}
