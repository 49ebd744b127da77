package kvcheck

import (
	"fmt"
	"math"
	"sort"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// StaleRead finds real-time stale reads per key: a get invoked after a write
// of a newer revision of its key had been acknowledged (the write precedes
// the get: its complete time < the get's invoke time, strictly, see the
// package doc), which still returned an older revision (or not found). Only ok gets and ok writes count.
//
// For each stale read it measures how many acknowledged versions it missed
// (acknowledged before the get was invoked, newer than what it returned)
// and how long it had been provably stale: the get's invoke time minus the
// earliest ack among those versions.
//
// Counts: gets, stale_reads, keys, keys_with_stale_reads.
// Stats: stale_fraction, staleness_ms_{p50,p90,p99,max},
// staleness_revs_{p50,p90,p99,max}. Histograms: staleness_ms,
// staleness_revs. Examples are the most stale reads, by milliseconds.
type StaleRead struct{ opts checker.Options }

// NewStaleRead returns the real-time stale-read checker.
func NewStaleRead(opts checker.Options) *StaleRead { return &StaleRead{opts: opts.WithDefaults()} }

// Name implements Checker.
func (*StaleRead) Name() string { return NameStaleRead }

type staleHit struct {
	get, write int32 // the get, the first acknowledged newer write
	revs       int
	ns         int64
}

var (
	staleMsBounds  = []float64{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000}
	staleRevBounds = []float64{1, 2, 3, 5, 10, 20, 50, 100}
)

// Check implements Checker.
func (c *StaleRead) Check(h history.History) checker.Result {
	if r, bad := rejectMalformed(c.Name(), &h); bad {
		return r
	}
	ops := h.Ops
	perKey, keys := byKey(ops)
	var hits []staleHit
	gets, staleKeys := 0, 0
	for _, k := range keys {
		n0 := len(hits)
		hits, gets = staleForKey(ops, perKey[k], hits, gets)
		if len(hits) > n0 {
			staleKeys++
		}
	}
	r := checker.Result{Name: c.Name(), Counts: map[string]int{
		CountGets: gets, CountStaleReads: len(hits), CountKeys: len(keys), CountKeysWithStaleReads: staleKeys,
	}, Part: &partState{}}
	msv := make([]float64, len(hits))
	revv := make([]float64, len(hits))
	for i, x := range hits {
		msv[i], revv[i] = ms(x.ns), float64(x.revs)
	}
	partOf(r).sample(StatStalenessMs, msv)
	partOf(r).sample(StatStalenessRevs, revv)
	// The most stale reads make the best examples.
	sort.SliceStable(hits, func(a, b int) bool { return hits[a].ns > hits[b].ns })
	for i := 0; i < len(hits) && i < c.opts.MaxExamples; i++ {
		x := hits[i]
		g, w := &ops[x.get], &ops[x.write]
		r.Anomalies = append(r.Anomalies, checker.Anomaly{Kind: KindStaleRead, Key: g.Key, Rank: float64(x.ns),
			Description: fmt.Sprintf("client %d get %s invoked at %.3fms (node %s) returned revision %d, but revision %d (client %d) had been acknowledged %.3fms earlier; it missed %d acknowledged version(s)",
				g.Client, g.Key, ms(g.Invoke), nodeName(g.Node), g.Rev, w.Rev, w.Client, ms(x.ns), x.revs),
			Ops: refs(ops, int(x.write), int(x.get))})
	}
	c.finish(&r)
	return r
}

// finish implements finisher: the stats and histograms of the stale reads'
// samples, the verdict and the summary.
func (c *StaleRead) finish(r *checker.Result) {
	msv, revv := partOf(*r).samples[StatStalenessMs], partOf(*r).samples[StatStalenessRevs]
	sort.Float64s(msv)
	sort.Float64s(revv)
	stale, gets := r.Counts[CountStaleReads], r.Counts[CountGets]
	frac := 0.0
	if gets > 0 {
		frac = float64(stale) / float64(gets)
	}
	r.Stats = map[string]float64{"stale_fraction": frac}
	for _, p := range []struct {
		name string
		p    float64
	}{{"p50", 50}, {"p90", 90}, {"p99", 99}, {"max", 100}} {
		r.Stats[StatStalenessMs+"_"+p.name] = percentile(msv, p.p)
		r.Stats[StatStalenessRevs+"_"+p.name] = percentile(revv, p.p)
	}
	r.Histograms = map[string][]checker.Bucket{
		StatStalenessMs:   histogram(msv, staleMsBounds, "ms"),
		StatStalenessRevs: histogram(revv, staleRevBounds, ""),
	}
	switch {
	case stale > 0:
		r.Verdict = checker.Invalid
		r.Summary = fmt.Sprintf("%d of %d gets (%.3f%%) were stale: %.1fms p50, %.1fms p99, %.1fms max behind; up to %d acknowledged versions missed",
			stale, gets, 100*frac, r.Stats["staleness_ms_p50"], r.Stats["staleness_ms_p99"], r.Stats["staleness_ms_max"], int(r.Stats["staleness_revs_max"]))
	case gets == 0:
		r.Verdict, r.Reason = checker.Unknown, "no successful gets to judge"
		r.Summary = r.Reason
	default:
		r.Verdict = checker.Valid
		r.Summary = fmt.Sprintf("no stale reads in %d gets", gets)
	}
}

func nodeName(n string) string {
	if n == "" {
		return "?"
	}
	return n
}

// staleForKey finds the stale gets among one key's ops. Writes are ranked
// by revision and inserted into two Fenwick trees in ack order while the
// gets are swept in invoke order: one counts acknowledged versions newer
// than what a get returned, the other keeps the earliest ack among them.
func staleForKey(ops []history.Op, idx []int32, hits []staleHit, gets int) ([]staleHit, int) {
	var ws, gs []int32
	for _, i := range idx {
		o := &ops[i]
		if o.Outcome != history.OK {
			continue
		}
		switch {
		case o.Type == history.Get:
			gs = append(gs, i)
		case o.IsWrite() && o.Rev > 0:
			ws = append(ws, i)
		}
	}
	gets += len(gs)
	if len(ws) == 0 || len(gs) == 0 {
		return hits, gets
	}
	sort.Slice(ws, func(a, b int) bool { return ops[ws[a]].Rev < ops[ws[b]].Rev })
	// byAck[j] is the revision rank of the j-th write to be acknowledged.
	byAck := make([]int32, len(ws))
	for j := range byAck {
		byAck[j] = int32(j)
	}
	sort.SliceStable(byAck, func(a, b int) bool { return ops[ws[byAck[a]]].Complete < ops[ws[byAck[b]]].Complete })
	sort.SliceStable(gs, func(a, b int) bool { return ops[gs[a]].Invoke < ops[gs[b]].Invoke })

	m := len(ws)
	cnt := make([]int32, m+1)  // Fenwick: count by revision rank
	minT := make([]int64, m+1) // Fenwick over reversed ranks: earliest ack
	minW := make([]int32, m+1)
	for i := range minT {
		minT[i] = math.MaxInt64
	}
	inserted, j := 0, 0
	for _, gi := range gs {
		g := &ops[gi]
		for j < m && precedes(ops[ws[byAck[j]]].Complete, g.Invoke) {
			p := int(byAck[j])
			for x := p + 1; x <= m; x += x & -x {
				cnt[x]++
			}
			t := ops[ws[p]].Complete
			for x := m - p; x <= m; x += x & -x {
				if t < minT[x] {
					minT[x], minW[x] = t, ws[p]
				}
			}
			inserted++
			j++
		}
		if inserted == 0 {
			continue
		}
		// First write ranked above what the get returned.
		p := sort.Search(m, func(x int) bool { return ops[ws[x]].Rev > g.Rev })
		if p == m {
			continue
		}
		older := 0 // inserted writes with rank < p
		for x := p; x > 0; x -= x & -x {
			older += int(cnt[x])
		}
		newer := inserted - older
		if newer == 0 {
			continue
		}
		t, w := int64(math.MaxInt64), int32(-1)
		for x := m - p; x > 0; x -= x & -x {
			if minT[x] < t {
				t, w = minT[x], minW[x]
			}
		}
		hits = append(hits, staleHit{get: gi, write: w, revs: newer, ns: g.Invoke - t})
	}
	return hits, gets
}
