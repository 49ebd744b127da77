package kvcheck

import (
	"container/heap"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/checker/replicas"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// The kv-update workload at its largest: 10,000 keys, single writers that
// get a key (Zipf 1.1 over the keys they own) and then update, delete,
// purge or create it, against a linearizable store with a bucket that keeps
// one revision per key; StaleRate of the gets return the previous version.
//
//	go test -run x -bench 'Scale' -benchtime 1x ./checker/
type scaleConfig struct {
	Ops, Clients, Keys                int
	DeleteRate, PurgeRate, CreateRate float64
	StaleRate                         float64
	Zipf                              float64
	Seed                              uint64
}

var scaleCfg = scaleConfig{Ops: 1_000_000, Clients: 100, Keys: 10_000, DeleteRate: 0.05, PurgeRate: 0.02,
	CreateRate: 0.03, StaleRate: 0.001, Zipf: 1.1, Seed: 7}

type scaleVersion struct {
	rev    uint64
	value  string
	marker string // "", "del" or "purge"
}

type scaleClient struct {
	id    int
	owned []int
	zipf  *rand.Zipf
	wrote int
	op    history.Op
	key   int
	got   *history.Op // the get this client's next write follows
}

// simulateScale returns the history (its stream is every stored message,
// as the observers see it) and the read-back after it (one per key).
func simulateScale(cfg scaleConfig) (history.History, Final) {
	r := rand.New(rand.NewPCG(cfg.Seed, 0x5ca1e))
	cur := make([][]scaleVersion, cfg.Keys) // the last two versions of each key
	var rev uint64
	var stream []history.Entry
	ops := make([]history.Op, 0, cfg.Ops)
	clients := make([]*scaleClient, cfg.Clients)
	for i := range clients {
		c := &scaleClient{id: i}
		for k := i; k < cfg.Keys; k += cfg.Clients {
			c.owned = append(c.owned, k)
		}
		c.zipf = rand.NewZipf(r, cfg.Zipf, 1, uint64(len(c.owned)-1))
		clients[i] = c
	}
	var h simHeap
	started := 0
	start := func(c *scaleClient, t int64) {
		if started >= cfg.Ops {
			return
		}
		started++
		op := history.Op{Client: c.id, Node: "n" + strconv.Itoa(c.id%3+1), Invoke: t}
		if c.got == nil {
			c.key = c.owned[c.zipf.Uint64()]
			op.Type, op.Key = history.Get, simKey(c.key)
		} else {
			g := c.got
			op.Key = g.Key
			switch x := r.Float64(); {
			case x < cfg.DeleteRate:
				op.Type = history.Delete
			case x < cfg.DeleteRate+cfg.PurgeRate:
				op.Type = history.Purge
			case x < cfg.DeleteRate+cfg.PurgeRate+cfg.CreateRate || g.Err == history.ErrNotFound:
				op.Type = history.Create
			default:
				op.Type, op.ExpectedRev = history.Update, g.Rev
			}
			c.wrote++
			op.Value = "c" + strconv.Itoa(c.id) + "-" + strconv.Itoa(c.wrote)
		}
		c.op = op
		heap.Push(&h, simEvent{t: t + simLatency(r)/2, client: c.id, apply: true})
	}
	apply := func(c *scaleClient) {
		op := &c.op
		vs := cur[c.key]
		write := func(marker string) {
			rev++
			v := scaleVersion{rev, op.Value, marker}
			cur[c.key] = append(vs[max(0, len(vs)-1):], v)
			stream = append(stream, history.Entry{Seq: rev, Key: op.Key, Value: op.Value, Operation: marker})
			op.Rev = rev
		}
		op.Outcome = history.OK
		live := len(vs) > 0 && vs[len(vs)-1].marker == ""
		switch op.Type {
		case history.Get:
			i := len(vs) - 1
			if i > 0 && r.Float64() < cfg.StaleRate {
				i--
			}
			if i >= 0 {
				op.Rev, op.Value = vs[i].rev, vs[i].value
				if vs[i].marker != "" {
					op.Err = history.ErrNotFound
				}
			} else {
				op.Err = history.ErrNotFound
			}
		case history.Delete:
			write("del")
		case history.Purge:
			write("purge")
		case history.Create:
			if live {
				op.Outcome, op.Err, op.ErrCode = history.Fail, history.ErrKeyExists, 10071
			} else {
				write("")
			}
		case history.Update:
			if !live || vs[len(vs)-1].rev != op.ExpectedRev {
				op.Outcome, op.Err, op.ErrCode = history.Fail, history.ErrWrongLastSeq, 10071
			} else {
				write("")
			}
		}
	}
	for _, c := range clients {
		start(c, int64(c.id)*10_000)
	}
	for h.Len() > 0 {
		e := heap.Pop(&h).(simEvent)
		c := clients[e.client]
		if e.apply {
			apply(c)
			heap.Push(&h, simEvent{t: e.t + simLatency(r)/2, client: c.id})
			continue
		}
		c.op.Complete = e.t
		ops = append(ops, c.op)
		c.got = nil
		if c.op.Type == history.Get && c.op.Outcome == history.OK {
			g := c.op
			c.got = &g
		}
		start(c, e.t+r.Int64N(50_000))
	}
	var final []history.Entry
	for k, vs := range cur {
		if len(vs) > 0 {
			v := vs[len(vs)-1]
			final = append(final, history.Entry{Seq: v.rev, Key: simKey(k), Value: v.value, Operation: v.marker})
		}
	}
	sortEntries(final)
	return history.History{Ops: ops, Stream: stream, StreamComplete: true},
		Final{Entries: final, Complete: true, PerKey: 1, Observed: stream}
}

func sortEntries(es []history.Entry) {
	for i := 1; i < len(es); i++ { // insertion sort is enough: only used once, on 10k entries
		for j := i; j > 0 && es[j].Seq < es[j-1].Seq; j-- {
			es[j], es[j-1] = es[j-1], es[j]
		}
	}
}

var (
	scaleHist  history.History
	scaleFinal Final
)

func scaleHistory() (history.History, Final) {
	if scaleHist.Ops == nil {
		scaleHist, scaleFinal = simulateScale(scaleCfg)
	}
	return scaleHist, scaleFinal
}

func benchScale(b *testing.B, mk func(Final) Checker) {
	h, f := scaleHistory()
	benchOn(b, h, mk(f))
}

func BenchmarkScaleSession(b *testing.B) {
	benchScale(b, func(Final) Checker { return NewSession(checker.Options{}) })
}
func BenchmarkScaleStaleRead(b *testing.B) {
	benchScale(b, func(Final) Checker { return NewStaleRead(checker.Options{}) })
}
func BenchmarkScaleAttribution(b *testing.B) {
	benchScale(b, func(Final) Checker { return NewAttribution(checker.Options{}) })
}
func BenchmarkScaleIntegrity(b *testing.B) {
	benchScale(b, func(Final) Checker { return NewIntegrity(checker.Options{}) })
}
func BenchmarkScaleLinearizability(b *testing.B) {
	benchScale(b, func(Final) Checker { return NewLinearizability(checker.Options{OutDir: b.TempDir()}) })
}
func BenchmarkScaleRetention(b *testing.B) {
	benchScale(b, func(f Final) Checker { return NewRetention(checker.Options{}, f) })
}
func BenchmarkScaleDeletes(b *testing.B) {
	benchScale(b, func(f Final) Checker { return NewDeletes(checker.Options{}, f) })
}

// divergenceChecker adapts replicas.CheckDivergence to benchOn.
type divergenceChecker struct{ reps []replicas.Replica }

func (divergenceChecker) Name() string { return replicas.NameDivergence }
func (d divergenceChecker) Check(history.History) checker.Result {
	return replicas.CheckDivergence(d.reps, checker.Options{})
}

// BenchmarkScaleDivergence compares three replicas of the whole observed
// stream (what a keep-all bucket holds after a million ops), one of them
// with a value changed.
func BenchmarkScaleDivergence(b *testing.B) {
	h, _ := scaleHistory()
	reps := make([]replicas.Replica, 3)
	for i := range reps {
		reps[i] = replicas.Replica{Node: "n" + strconv.Itoa(i+1), Entries: h.Stream, Complete: true}
	}
	changed := append([]history.Entry(nil), h.Stream...)
	changed[len(changed)/2].Value = "x"
	reps[1].Entries = changed
	benchOn(b, history.History{Ops: h.Ops}, divergenceChecker{reps})
}

// TestScaleSimulation: on the simulated workload with deletes, purges and
// creates over many keys, every checker stays quiet against a
// linearizable store and the read-related ones speak up once gets may be
// stale.
func TestScaleSimulation(t *testing.T) {
	cfg := scaleCfg
	cfg.Ops, cfg.Keys, cfg.Clients = 40_000, 500, 20
	for _, stale := range []float64{0, 0.01} {
		cfg.StaleRate = stale
		h, f := simulateScale(cfg)
		checks := append(All(checker.Options{MaxVisualizations: -1}), NewRetention(checker.Options{}, f), NewDeletes(checker.Options{}, f))
		for _, r := range Run(h, checks) {
			want := checker.Valid
			if stale > 0 && (r.Name == NameSession || r.Name == NameStaleRead || r.Name == NameLinearizability ||
				r.Name == NameDeletes || r.Name == NameAttribution) {
				want = checker.Invalid
			}
			if r.Verdict != want {
				t.Errorf("stale rate %g: %s: %s (%s %s), want %s", stale, r.Name, r.Verdict, r.Summary, r.Reason, want)
			}
			if r.Name == NameDeletes && (r.Counts[CountMarkers] == 0 || r.Counts[CountCreatesAfterMarker] == 0) {
				t.Errorf("the simulation exercised no markers or creates after them: %v", r.Counts)
			}
		}
		if f.Entries == nil || h.Stream == nil {
			t.Fatal("the simulation wrote nothing")
		}
	}
}
