package catchup

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

// The observer samples, each on its own goroutine so that one slow or dead
// node never delays another's readings:
//
//	what                         how                                   every
//	memory as the limit sees it  Cluster.Memory (docker: the cgroup's   SampleInterval (<= 250 ms)
//	                             usage, page cache included)
//	resident memory              /varz mem (the process's RSS)          SampleInterval
//	runtime state                Cluster.State (OOM kills, restarts)    250 ms
//	health                       /healthz, full                         1 s
//	the target's lag             target /jsz + leader stream info       500 ms
//
// The cgroup figure is what an OOM kill compares with the limit, but it
// counts page cache, which a node writing a 6 GB stream fills: on an
// unlimited node it grows with the stream and says nothing about the
// server. RSS is the server's own memory and the figure to compare across
// versions; both are kept.

type observer struct {
	c      cluster.Cluster
	t0     time.Time
	every  time.Duration
	stream string
	mon    cluster.Monitor // the default timeout, 2 s

	target atomic.Int32 // -1 until chosen
	info   func(context.Context) (*jetstream.StreamInfo, error)

	mu     sync.Mutex
	mem    []NodeMemory
	states []StateSample
	latest []cluster.NodeState
	health []HealthSample
	lag    []LagSample

	cancel context.CancelFunc
	wg     sync.WaitGroup
	lagWG  sync.WaitGroup
}

func newObserver(c cluster.Cluster, t0 time.Time, every time.Duration, stream string) *observer {
	o := &observer{c: c, t0: t0, every: every, stream: stream}
	o.target.Store(-1)
	for _, n := range c.Nodes() {
		o.mem = append(o.mem, NodeMemory{Node: n.Name})
	}
	o.latest = make([]cluster.NodeState, len(o.mem))
	return o
}

func (o *observer) now() int64 { return since(o.t0) }

// start launches every sampler but the lag one.
func (o *observer) start(ctx context.Context) {
	ctx, o.cancel = context.WithCancel(ctx)
	for i := range o.mem {
		o.wg.Go(func() { o.every1(ctx, o.every, func(ctx context.Context) { o.sampleUsage(ctx, i) }) })
		o.wg.Go(func() { o.every1(ctx, o.every, func(ctx context.Context) { o.sampleRSS(ctx, i) }) })
		o.wg.Go(func() { o.every1(ctx, 250*time.Millisecond, func(ctx context.Context) { o.sampleState(ctx, i) }) })
		o.wg.Go(func() { o.every1(ctx, time.Second, func(ctx context.Context) { o.sampleHealth(ctx, i) }) })
	}
}

// watchTarget starts the lag sampler on node i.
func (o *observer) watchTarget(ctx context.Context, i int, info func(context.Context) (*jetstream.StreamInfo, error)) {
	o.target.Store(int32(i))
	o.info = info
	ctx, cancel := context.WithCancel(ctx)
	prev := o.cancel
	o.cancel = func() { cancel(); prev() }
	o.lagWG.Go(func() { o.every1(ctx, 500*time.Millisecond, func(ctx context.Context) { o.sampleLag(ctx, i) }) })
}

func (o *observer) stop() {
	if o.cancel != nil {
		o.cancel()
	}
	o.wg.Wait()
	o.lagWG.Wait()
}

// every1 calls f at each tick until ctx ends. A call that overruns its
// period skips the ticks it missed rather than piling up.
func (o *observer) every1(ctx context.Context, d time.Duration, f func(context.Context)) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		f(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (o *observer) sampleUsage(ctx context.Context, i int) {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	v, err := o.c.Memory(ctx, i)
	if err != nil {
		return // down: no reading
	}
	t := o.now()
	o.mu.Lock()
	o.mem[i].Usage.add(t, v)
	o.mu.Unlock()
}

func (o *observer) sampleRSS(ctx context.Context, i int) {
	v, err := o.mon.Varz(ctx, o.c.Nodes()[i])
	if err != nil || v.Mem == 0 {
		return
	}
	t := o.now()
	o.mu.Lock()
	o.mem[i].RSS.add(t, v.Mem)
	o.mu.Unlock()
}

func (o *observer) sampleState(ctx context.Context, i int) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	st, err := o.c.State(ctx, i)
	if ctx.Err() != nil {
		return
	}
	s := StateSample{TMs: o.now(), Node: o.mem[i].Node, NodeState: st}
	if err != nil {
		s.Err = oneLine(err.Error(), 200)
	}
	o.mu.Lock()
	o.states = append(o.states, s)
	if err == nil {
		o.latest[i] = st
	}
	o.mu.Unlock()
}

func (o *observer) sampleHealth(ctx context.Context, i int) {
	n := o.c.Nodes()[i]
	h := HealthSample{Node: n.Name}
	code, problem := o.healthz(ctx, n)
	if ctx.Err() != nil {
		return
	}
	h.TMs, h.Status, h.OK, h.Error = o.now(), code, code == http.StatusOK, oneLine(problem, 160)
	o.mu.Lock()
	o.health = append(o.health, h)
	o.mu.Unlock()
}

// healthz is what n's full /healthz said: its status (0 for no answer)
// and, when it is not 200 OK, why not: the answer's body, or the error.
func (o *observer) healthz(ctx context.Context, n cluster.Node) (status int, problem string) {
	_, err := o.mon.Healthz(ctx, n, cluster.HealthzOptions{})
	var he *cluster.HTTPError
	switch {
	case err == nil:
		return http.StatusOK, ""
	case errors.As(err, &he):
		return he.Status, he.Body
	}
	return 0, err.Error()
}

func (o *observer) sampleLag(ctx context.Context, i int) {
	n := o.c.Nodes()[i]
	var ls LagSample
	var errs []string
	var wg sync.WaitGroup
	wg.Go(func() {
		s, ok, err := o.mon.LocalStream(ctx, n, o.stream)
		if err != nil {
			errs = append(errs, "target /jsz: "+oneLine(err.Error(), 120))
			return
		}
		ls.TargetHas = ok
		ls.TargetMsgs, ls.TargetBytes, ls.TargetLastSeq = s.State.Msgs, s.State.Bytes, s.State.LastSeq
	})
	var herr string
	wg.Go(func() {
		code, problem := o.healthz(ctx, n)
		herr, ls.TargetHealthy = oneLine(problem, 120), code == http.StatusOK
	})
	var ierr error
	var info *jetstream.StreamInfo
	wg.Go(func() {
		ictx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		info, ierr = o.info(ictx)
	})
	wg.Wait()
	if ctx.Err() != nil {
		return
	}
	ls.TargetHealth = herr
	if ierr != nil {
		errs = append(errs, "stream info: "+oneLine(ierr.Error(), 120))
	} else if info != nil {
		ls.LeaderMsgs, ls.LeaderBytes, ls.LeaderLastSeq = info.State.Msgs, info.State.Bytes, info.State.LastSeq
		if info.Cluster != nil {
			ls.Leader = info.Cluster.Leader
			for _, r := range info.Cluster.Replicas {
				if r.Name == n.Name {
					ls.ReplicaLag, ls.ReplicaCurrent, ls.ReplicaOffline = r.Lag, r.Current, r.Offline
				}
			}
		}
	}
	if ls.LeaderLastSeq > ls.TargetLastSeq {
		ls.Behind = ls.LeaderLastSeq - ls.TargetLastSeq
	}
	ls.Err = strings.Join(errs, "; ")
	ls.TMs = o.now()
	o.mu.Lock()
	o.lag = append(o.lag, ls)
	o.mu.Unlock()
}

// limit records a change of node i's hard limit.
func (o *observer) limit(i int, bytes int64) {
	o.mu.Lock()
	o.mem[i].Limit.add(o.now(), bytes)
	o.mu.Unlock()
}

// lastState is the latest State read of node i.
func (o *observer) lastState(i int) cluster.NodeState {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.latest[i]
}

// lastLag is the latest lag sample, and the one before it.
func (o *observer) lastLag() (cur, prev LagSample, n int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	n = len(o.lag)
	if n > 0 {
		cur = o.lag[n-1]
	}
	if n > 1 {
		prev = o.lag[n-2]
	}
	return cur, prev, n
}

// lastLeaderView is the latest lag sample that has the leader's view of
// the stream.
func (o *observer) lastLeaderView() (LagSample, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for i := len(o.lag) - 1; i >= 0; i-- {
		if o.lag[i].LeaderBytes > 0 {
			return o.lag[i], true
		}
	}
	return LagSample{}, false
}

// lastRSS is node i's latest resident memory reading.
func (o *observer) lastRSS(i int) int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	s := o.mem[i].RSS
	if len(s.V) == 0 {
		return 0
	}
	return s.V[len(s.V)-1]
}
