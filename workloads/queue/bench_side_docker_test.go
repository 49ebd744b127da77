package queue

import (
	"sync"
	"testing"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/internal/celltest"
)

// BenchmarkDockerSideBySide runs the harness and the bare loop
// of BenchmarkDockerThroughput at the same time, each on its own stream of
// one cluster, in 8 rounds of 8 s. Each round both set up first, then
// both leaders are placed alike (placeLeaders, from node round mod 3), and
// the two swap stream names. Sharing every moment, they share whatever
// else loads the machine, which on a shared machine moved the alternating
// phases' rates by 3x from one phase to the next; each gets about half the
// cluster. Run with -run '^$' -bench DockerSideBySide -benchtime 1x (named
// so that -bench DockerThroughput leaves it out).
func BenchmarkDockerSideBySide(b *testing.B) {
	c := celltest.BenchCluster(b, "queue-side")
	o := Defaults
	o.Rate, o.NakRate, o.SkipRate = 0, 0, 0
	const phase, rounds = 8 * time.Second, 8
	streams := [2]string{"QA", "QB"}
	var bare, harness throughput
	for range b.N {
		for round := range rounds {
			ob, oh := o, o
			ob.Stream, oh.Stream = streams[round%2], streams[1-round%2]
			// Both set up first, so that neither runs while the other
			// is still creating its stream: the one started later
			// would have the cluster alone for its tail.
			runBare, runHarness := placed(b, c, ob, round, bareSetup), placed(b, c, oh, round, harnessSetup)
			var bt throughput
			var wg sync.WaitGroup
			wg.Go(func() { bt = runBare(phase) })
			ht := runHarness(phase)
			wg.Wait()
			if b.Failed() { // bareLoop's b.Fatal ended only its own goroutine
				b.FailNow()
			}
			b.Logf("round %d: bare %s, harness %s", round, bt, ht)
			bare.add(bt)
			harness.add(ht)
		}
	}
	report(b, bare, harness)
}
