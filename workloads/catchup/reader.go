package catchup

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"golang.org/x/time/rate"

	"github.com/jetstream-chaos/jetstream-chaos/client"
	"github.com/jetstream-chaos/jetstream-chaos/history"
	"github.com/jetstream-chaos/jetstream-chaos/internal/latency"
)

// The reader gets messages by sequence through a connection to the
// catching-up node, from its restart on. With Direct Get on, every replica
// answers gets from its own store and a local one is preferred, so these
// show what a lagging follower serves (a follower starts answering at about
// 90 % applied: nats-server jetstream_cluster.go, monitorStream); with it
// off they go to the leader. Only acknowledged sequences are asked for, so
// "not found" means a replica served a read before it had the message.

// ReadSummary is what the reader saw.
type ReadSummary struct {
	Gets     int64            `json:"gets"`
	OK       int64            `json:"ok"`
	NotFound int64            `json:"not_found"` // an acknowledged sequence answered as missing: a stale replica served it
	Errors   map[string]int64 `json:"errors,omitempty"`
	Latency  latency.Summary  `json:"latency"`
	// FirstNotFoundMs and LastNotFoundMs bound when stale answers came.
	FirstNotFoundMs int64 `json:"first_not_found_ms,omitempty"`
	LastNotFoundMs  int64 `json:"last_not_found_ms,omitempty"`
}

type reader struct {
	nc     *nats.Conn
	stream jetstream.Stream
	t0     time.Time
	last   func() uint64 // highest acknowledged sequence
	rec    opRecorder
	client int // its client id in the history, after the publishers'
	ph     *phaseNow

	mu   sync.Mutex
	sum  ReadSummary
	hist latency.Hist
}

// startReader starts the reader on a connection to the target alone. It
// binds the stream while the target may still be slow to answer, retrying
// for a few seconds: the handle's cached info carries allow_direct, which
// picks direct or leader gets.
func (r *cell) startReader(ctx context.Context) error {
	nc, err := client.Connect(r.c.Nodes(), []int{r.target}, "catchup-reader", reconnectBuf)
	if err != nil {
		return err
	}
	js, err := jetstream.New(nc)
	var s jetstream.Stream
	for try := 0; err == nil && s == nil; try++ {
		if try > 0 {
			time.Sleep(250 * time.Millisecond)
		}
		sctx, cancel := context.WithTimeout(ctx, time.Second)
		s, err = js.Stream(sctx, r.opts.Stream)
		cancel()
		if err != nil && try < 19 {
			err = nil // asked again
		}
	}
	if err != nil {
		nc.Close()
		return err
	}
	r.reader = &reader{nc: nc, stream: s, t0: r.t0, last: r.fleet.stats.lastSeq, rec: r.rec, client: r.opts.Publishers, ph: &r.ph}
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); r.reader.run(rctx, r.opts.ReadRate) }()
	r.readStop = func() { cancel(); <-done }
	return nil
}

func (r *reader) run(ctx context.Context, perSec float64) {
	lim := rate.NewLimiter(rate.Limit(perSec), 1)
	rng := rand.New(rand.NewPCG(uint64(r.t0.UnixNano()), 7))
	for lim.Wait(ctx) == nil {
		last := r.last()
		if last == 0 {
			continue
		}
		seq := 1 + rng.Uint64N(last)
		gctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		start := time.Now()
		_, err := r.stream.GetMsg(gctx, seq)
		end := time.Now()
		d := end.Sub(start)
		cancel()
		if ctx.Err() != nil {
			return
		}
		r.record(start, end, seq, err)
		r.mu.Lock()
		r.sum.Gets++
		switch {
		case err == nil:
			r.sum.OK++
			r.hist.Add(d)
		case errors.Is(err, jetstream.ErrMsgNotFound):
			r.sum.NotFound++
			t := time.Since(r.t0).Milliseconds()
			if r.sum.FirstNotFoundMs == 0 {
				r.sum.FirstNotFoundMs = t
			}
			r.sum.LastNotFoundMs = t
		default: // "disconnected" apart from "timeout": the connection goes to the target alone
			if r.sum.Errors == nil {
				r.sum.Errors = map[string]int64{}
			}
			r.sum.Errors[client.Classify(err).Name()]++
		}
		r.mu.Unlock()
	}
}

// record adds one get to the history.
func (r *reader) record(start, end time.Time, seq uint64, err error) {
	kind := ""
	switch {
	case errors.Is(err, jetstream.ErrMsgNotFound):
		kind = string(history.ErrNotFound)
	case err != nil:
		kind = client.Classify(err).Name()
	}
	ph := PhaseCatchup
	if r.ph != nil {
		ph = r.ph.get()
	}
	r.rec.add(OpGetMsg, r.client, r.nc.ConnectedServerName(), start, end, kind, Msg{Seq: seq, Phase: ph})
}

func (r *reader) summary() ReadSummary {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.sum
	s.Latency = r.hist.Summary()
	return s
}
