package observe

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

// DefaultEvery is the period of the memory readings when Options.Every is
// zero: 4 a second.
const DefaultEvery = 250 * time.Millisecond

// slowest is the shortest period of the state, health and stream
// readings: /healthz and /jsz cost the server more than /varz, and 4 a
// second catches a death (the runtime's counters keep those that fall
// between two readings anyway).
const slowest = 250 * time.Millisecond

// Options configure an Observer.
type Options struct {
	Cluster cluster.Cluster
	// Path is the file the samples go to (File in the cell's folder).
	Path string
	// Now is the history's clock: ns since its zero.
	Now func() int64
	// Every is the period of the memory readings (0: DefaultEvery); the
	// others run at Every but never more often than every 250 ms.
	Every time.Duration
	// Monitor reads the nodes' monitoring endpoints (the zero value waits
	// cluster.DefaultMonitorTimeout).
	Monitor cluster.Monitor
}

// Observer samples every node of a running cluster into its file until
// Stop. Its methods are safe for concurrent use.
type Observer struct {
	o     Options
	nodes int

	mu     sync.Mutex
	w      *bufio.Writer
	f      io.Closer // the file under w
	enc    *json.Encoder
	err    error                   // the first write error
	latest map[Kind]map[int]Sample // the latest reading of each kind, by node index

	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	stream  sync.Once
	stopped bool // Stop was called
	closed  bool // the stop line is written and the file closed
}

// Start creates the file, writes its start line (and, when the cluster was
// started with a memory limit, each node's limit) and starts sampling
// every node until Stop; ctx's end stops the sampling too. The stream's
// copies are sampled from Follow on.
func Start(ctx context.Context, o Options) (*Observer, error) {
	if o.Cluster == nil || o.Now == nil || o.Path == "" {
		return nil, errors.New("observe: Options needs a Cluster, a Path and the history's clock (Now)")
	}
	if o.Every <= 0 {
		o.Every = DefaultEvery
	}
	f, err := os.Create(o.Path)
	if err != nil {
		return nil, err
	}
	ob := newObserver(ctx, o, f)
	nodes := o.Cluster.Nodes()
	start := Sample{T: o.Now(), Kind: KindStart, Every: int64(o.Every)}
	for _, n := range nodes {
		start.Nodes = append(start.Nodes, n.Name)
	}
	ob.write(start)
	if lim := o.Cluster.Config().MemoryLimit; lim > 0 {
		for i := range nodes {
			ob.Limit(i, lim)
		}
	}
	slow := max(o.Every, slowest)
	for i := range nodes {
		ob.every(o.Every, func(ctx context.Context) { ob.sampleUsage(ctx, i) })
		ob.every(o.Every, func(ctx context.Context) { ob.sampleRSS(ctx, i) })
		ob.every(slow, func(ctx context.Context) { ob.sampleState(ctx, i) })
		ob.every(slow, func(ctx context.Context) { ob.sampleHealth(ctx, i) })
	}
	ob.wg.Go(ob.flushEverySecond)
	return ob, nil
}

// newObserver is an Observer writing to f, sampling nothing yet.
func newObserver(ctx context.Context, o Options, f io.WriteCloser) *Observer {
	ob := &Observer{o: o, f: f, latest: map[Kind]map[int]Sample{}, nodes: len(o.Cluster.Nodes())}
	ob.w = bufio.NewWriterSize(f, 64<<10)
	ob.enc = json.NewEncoder(ob.w)
	ob.ctx, ob.cancel = context.WithCancel(ctx)
	return ob
}

// Follow starts sampling every node's copy of stream (once: a second call
// is ignored).
func (ob *Observer) Follow(stream string) {
	if stream == "" {
		return
	}
	ob.stream.Do(func() {
		for i := range ob.nodes {
			ob.every(max(ob.o.Every, slowest), func(ctx context.Context) { ob.sampleStream(ctx, i, stream) })
		}
	})
}

// Limit records that node i's hard memory limit is bytes from now on (0:
// none): whoever changes it says so, the runtime has no reading of it.
func (ob *Observer) Limit(i int, bytes int64) {
	ob.record(i, Sample{T: ob.o.Now(), Node: ob.name(i), Kind: KindLimit, Bytes: bytes})
}

// Stop ends the sampling, writes the stop line and closes the file; it
// returns the first error writing it. Later calls do nothing.
func (ob *Observer) Stop() error {
	ob.mu.Lock()
	if ob.stopped {
		ob.mu.Unlock()
		return nil
	}
	ob.stopped = true
	ob.mu.Unlock()
	ob.cancel()
	ob.wg.Wait()
	ob.mu.Lock()
	defer ob.mu.Unlock()
	ob.writeLocked(Sample{T: ob.o.Now(), Kind: KindStop})
	ob.closed = true
	if err := ob.w.Flush(); err != nil && ob.err == nil {
		ob.err = err
	}
	if err := ob.f.Close(); err != nil && ob.err == nil {
		ob.err = err
	}
	return ob.err
}

// Latest is node i's latest reading of a kind, and false when there is
// none yet. A state or stream reading that failed is one too (Err set).
func (ob *Observer) Latest(k Kind, i int) (Sample, bool) {
	ob.mu.Lock()
	defer ob.mu.Unlock()
	s, ok := ob.latest[k][i]
	return s, ok
}

// every calls f every d on its own goroutine until Stop. A call that
// overruns its period skips the ticks it missed rather than piling up.
func (ob *Observer) every(d time.Duration, f func(context.Context)) {
	ob.wg.Go(func() {
		t := time.NewTicker(d)
		defer t.Stop()
		for {
			f(ob.ctx)
			select {
			case <-ob.ctx.Done():
				return
			case <-t.C:
			}
		}
	})
}

func (ob *Observer) flushEverySecond() {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ob.ctx.Done():
			return
		case <-t.C:
		}
		ob.mu.Lock()
		if err := ob.w.Flush(); err != nil && ob.err == nil {
			ob.err = err
		}
		ob.mu.Unlock()
	}
}

// name is node i's server name now (a renamed node reads as its new name).
func (ob *Observer) name(i int) string { return ob.o.Cluster.Nodes()[i].Name }

// record writes node i's sample and keeps it as the latest of its kind.
func (ob *Observer) record(i int, s Sample) {
	ob.mu.Lock()
	defer ob.mu.Unlock()
	if ob.latest[s.Kind] == nil {
		ob.latest[s.Kind] = map[int]Sample{}
	}
	ob.latest[s.Kind][i] = s
	ob.writeLocked(s)
}

func (ob *Observer) write(s Sample) {
	ob.mu.Lock()
	defer ob.mu.Unlock()
	ob.writeLocked(s)
}

// writeLocked writes s, unless the stop line is written: a reading that
// comes after (a limit a workload lifts late) is dropped, not written into
// a closed file.
func (ob *Observer) writeLocked(s Sample) {
	if ob.closed {
		return
	}
	if err := ob.enc.Encode(s); err != nil && ob.err == nil {
		ob.err = err
	}
}

func (ob *Observer) sampleUsage(ctx context.Context, i int) {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	v, err := ob.o.Cluster.Memory(ctx, i)
	if err != nil {
		return // down: no reading
	}
	ob.record(i, Sample{T: ob.o.Now(), Node: ob.name(i), Kind: KindUsage, Bytes: v})
}

func (ob *Observer) sampleRSS(ctx context.Context, i int) {
	v, err := ob.o.Monitor.Varz(ctx, ob.o.Cluster.Nodes()[i])
	if err != nil || v.Mem == 0 {
		return // down, or no figure: no reading
	}
	ob.record(i, Sample{T: ob.o.Now(), Node: ob.name(i), Kind: KindRSS, Bytes: v.Mem})
}

func (ob *Observer) sampleState(ctx context.Context, i int) {
	asked := ob.o.Now()
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	st, err := ob.o.Cluster.State(ctx, i)
	if ob.ctx.Err() != nil {
		return // stopping: the reading was cut, not failed
	}
	s := Sample{T: ob.o.Now(), Asked: asked, Node: ob.name(i), Kind: KindState}
	if err != nil {
		s.Err = OneLine(err.Error(), 200)
	} else {
		s.State = &st
	}
	ob.record(i, s)
}

func (ob *Observer) sampleHealth(ctx context.Context, i int) {
	asked := ob.o.Now()
	n := ob.o.Cluster.Nodes()[i]
	status, problem := ob.healthz(ctx, n)
	if ob.ctx.Err() != nil {
		return
	}
	ob.record(i, Sample{T: ob.o.Now(), Asked: asked, Node: n.Name, Kind: KindHealth, Status: status, Err: OneLine(problem, 160)})
}

// healthz is what n's full /healthz said: its status (0 for no answer)
// and, when it is not 200 OK, why not: the answer's body, or the error.
func (ob *Observer) healthz(ctx context.Context, n cluster.Node) (status int, problem string) {
	_, err := ob.o.Monitor.Healthz(ctx, n, cluster.HealthzOptions{})
	var he *cluster.HTTPError
	switch {
	case err == nil:
		return http.StatusOK, ""
	case errors.As(err, &he):
		return he.Status, he.Body
	}
	return 0, err.Error()
}

func (ob *Observer) sampleStream(ctx context.Context, i int, stream string) {
	asked := ob.o.Now()
	n := ob.o.Cluster.Nodes()[i]
	sd, ok, err := ob.o.Monitor.LocalStream(ctx, n, stream)
	if ob.ctx.Err() != nil {
		return
	}
	s := Sample{T: ob.o.Now(), Asked: asked, Node: n.Name, Kind: KindStream}
	if err != nil {
		s.Err = OneLine(err.Error(), 200)
	} else {
		st := sd.State
		s.Stream = &Stream{Name: stream, Has: ok, Msgs: st.Msgs, Bytes: st.Bytes, FirstSeq: st.FirstSeq, LastSeq: st.LastSeq, Leader: sd.Leader()}
		if sd.Cluster != nil {
			s.Stream.Replicas = sd.Cluster.Replicas
		}
	}
	ob.record(i, s)
}

// OneLine folds s onto one line of at most n bytes, as the readings keep
// their errors.
func OneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = s[:n] + "..."
	}
	return s
}
