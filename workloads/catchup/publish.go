package catchup

import (
	"context"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"golang.org/x/time/rate"

	"github.com/jetstream-chaos/jetstream-chaos/client"
	"github.com/jetstream-chaos/jetstream-chaos/history/msgid"
	"github.com/jetstream-chaos/jetstream-chaos/internal/ctxtime"
)

// Publishers send plain core NATS requests, many in flight, each with the
// reply subject <inbox>.<n>, and one wildcard subscription takes every ack:
// each ack time is exact (nats.go's async publish hands out futures, waited
// on in order) and nothing is kept beyond the window in flight. A publish
// not acknowledged within PublishTimeout is indeterminate (it may still be
// stored); an ack that comes later still counts.

// Phase names a stretch of the run; publish latencies are kept per phase.
type Phase string

const (
	PhaseFill    Phase = "fill"    // filling the backlog, as fast as acks come
	PhaseDown    Phase = "down"    // the target is down, publishing at --rate
	PhaseCatchup Phase = "catchup" // from the target's restart until it is current
	PhaseSettle  Phase = "settle"  // after it is current, still watching
	PhaseHeal    Phase = "heal"
	PhaseVerify  Phase = "verify"
)

// Phases are the phases in the order they run.
var Phases = []Phase{PhaseFill, PhaseDown, PhaseCatchup, PhaseSettle, PhaseHeal, PhaseVerify}

// phaseNow is the current phase, shared by the publishers and the reader.
type phaseNow struct{ p atomic.Value }

func (p *phaseNow) set(ph Phase) { p.p.Store(ph) }

func (p *phaseNow) get() Phase {
	if v, ok := p.p.Load().(Phase); ok {
		return v
	}
	return PhaseFill
}

// publisher is one connection publishing ids idx.1, idx.2, ...
type publisher struct {
	idx     int
	nc      *nats.Conn
	subject string
	inbox   string
	payload []byte
	timeout time.Duration
	stats   *pubStats
	phase   *phaseNow
	rec     opRecorder
	slots   chan struct{}
	sub     *nats.Subscription

	mu      sync.Mutex
	pending map[uint64]pending
	acked   msgid.Set
	next    uint64

	// pauseUntil (unix ns): after a no-responders answer the stream has no
	// leader to take writes (an election, or interest not yet propagated);
	// sending on would only turn the window into thousands of failures.
	pauseUntil atomic.Int64
}

type pending struct {
	at    time.Time
	phase Phase
}

func newPublisher(nc *nats.Conn, idx int, subject string, payload []byte, window int, timeout time.Duration, stats *pubStats, ph *phaseNow, rec opRecorder) (*publisher, error) {
	// Our own inbox, not nats.go's shared request one: its tokens are ours.
	p := &publisher{idx: idx, nc: nc, subject: subject, inbox: nc.NewInbox(), payload: payload, timeout: timeout,
		stats: stats, phase: ph, rec: rec, slots: make(chan struct{}, window), pending: map[uint64]pending{}}
	sub, err := nc.Subscribe(p.inbox+".*", p.onAck)
	if err != nil {
		return nil, err
	}
	// Acks must never be dropped as a slow consumer: a dropped ack would be
	// a false timeout.
	if err := sub.SetPendingLimits(-1, -1); err != nil {
		return nil, err
	}
	p.sub = sub
	return p, nil
}

func (p *publisher) onAck(m *nats.Msg) {
	now := time.Now()
	n, err := strconv.ParseUint(m.Subject[strings.LastIndexByte(m.Subject, '.')+1:], 10, 64)
	if err != nil {
		return
	}
	p.mu.Lock()
	pd, waiting := p.pending[n]
	delete(p.pending, n)
	p.mu.Unlock()
	if waiting {
		<-p.slots
	}
	seq, kind := client.PubAckOf(m)
	switch {
	case kind == "":
		p.mu.Lock()
		p.acked.Add(msgid.ID{Pub: p.idx, N: n})
		p.mu.Unlock()
		p.stats.ok(pd.phase, pd.at, now, len(p.payload), seq, !waiting)
	case waiting:
		p.stats.fail(pd.phase, kind)
	}
	if kind == client.ErrNameNoResponders {
		p.pauseUntil.Store(now.Add(100 * time.Millisecond).UnixNano())
	}
	if waiting {
		p.record(n, pd, now, kind, seq)
	}
}

// reap times out publishes older than the timeout, until ctx ends.
func (p *publisher) reap(ctx context.Context) {
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			p.expire(now)
		}
	}
}

func (p *publisher) expire(now time.Time) {
	expired := map[uint64]pending{}
	p.mu.Lock()
	for n, pd := range p.pending {
		if now.Sub(pd.at) > p.timeout {
			delete(p.pending, n)
			expired[n] = pd
		}
	}
	p.mu.Unlock()
	for n, pd := range expired {
		<-p.slots
		p.stats.fail(pd.phase, client.ErrNameTimeout)
		p.record(n, pd, now, client.ErrNameTimeout, 0)
	}
}

// record adds message n's publish to the history: acknowledged at seq, or
// ended with kind. An ack after the timeout is not recorded again: the
// history keeps the publish indeterminate, as any late ack leaves it.
func (p *publisher) record(n uint64, pd pending, end time.Time, kind string, seq uint64) {
	p.rec.add(OpPublish, p.idx, p.nc.ConnectedServerName(), pd.at, end, kind, Msg{ID: msgid.ID{Pub: p.idx, N: n}.String(), Seq: seq, Phase: pd.phase})
}

// send publishes until ctx ends or more() says stop, paced by lim if not nil.
func (p *publisher) send(ctx context.Context, lim *rate.Limiter, more func() bool) {
	hdr := nats.Header{}
	for ctx.Err() == nil && more() {
		if lim != nil && lim.Wait(ctx) != nil {
			return
		}
		if d := time.Until(time.Unix(0, p.pauseUntil.Load())); d > 0 && !ctxtime.Sleep(ctx, d) {
			return
		}
		select {
		case p.slots <- struct{}{}:
		case <-ctx.Done():
			return
		}
		p.mu.Lock()
		p.next++
		n := p.next
		pd := pending{at: time.Now(), phase: p.phase.get()}
		p.pending[n] = pd
		p.mu.Unlock()
		hdr.Set(msgid.Header, msgid.ID{Pub: p.idx, N: n}.String())
		msg := &nats.Msg{Subject: p.subject, Reply: p.inbox + "." + strconv.FormatUint(n, 10), Header: hdr, Data: p.payload}
		p.stats.addSent(len(p.payload))
		if err := p.nc.PublishMsg(msg); err != nil {
			p.mu.Lock()
			_, still := p.pending[n]
			delete(p.pending, n)
			p.mu.Unlock()
			if still {
				<-p.slots
				kind := "publish_" + client.SendErrName(err)
				now := time.Now()
				p.stats.fail(pd.phase, kind)
				p.record(n, pd, now, kind, 0)
			}
			ctxtime.Sleep(ctx, 50*time.Millisecond) // the connection is down or its buffer full: do not spin
		}
	}
}

// inFlight is how many publishes await an ack.
func (p *publisher) inFlight() int { return len(p.slots) }

// drain waits until nothing is in flight (acks or timeouts), or ctx ends.
func (p *publisher) drain(ctx context.Context) {
	for {
		p.mu.Lock()
		n := len(p.pending)
		p.mu.Unlock()
		if n == 0 || !ctxtime.Sleep(ctx, 20*time.Millisecond) {
			return
		}
	}
}

// abandon records every publish still awaiting its ack as indeterminate,
// ended now: the history must hold every publish sent.
func (p *publisher) abandon(now time.Time) {
	p.mu.Lock()
	left := p.pending
	p.pending = map[uint64]pending{}
	p.mu.Unlock()
	for n, pd := range left {
		p.record(n, pd, now, client.ErrNameTimeout, 0)
	}
}

// fleet is every publisher.
type fleet struct {
	pubs  []*publisher
	stats *pubStats
	stop  context.CancelFunc // of the reapers
}

// randomPayload is one incompressible payload shared by every message.
func randomPayload(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 0x6361746368))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// run publishes from every publisher, each at rate/len(pubs) bytes a second
// (unpaced when bytesPerSec is 0), until ctx ends or more() says stop; then
// waits up to the publish timeout for what is in flight.
func (f *fleet) run(ctx context.Context, bytesPerSec float64, more func() bool) {
	var wg sync.WaitGroup
	for _, p := range f.pubs {
		var lim *rate.Limiter
		if bytesPerSec > 0 {
			perMsg := bytesPerSec / float64(len(p.payload)) / float64(len(f.pubs))
			lim = rate.NewLimiter(rate.Limit(perMsg), max(1, int(perMsg/50))) // 20 ms of burst
		}
		wg.Go(func() { p.send(ctx, lim, more) })
	}
	wg.Wait()
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), f.pubs[0].timeout+time.Second)
	defer cancel()
	for _, p := range f.pubs {
		p.drain(dctx)
	}
}

// inFlight is how many publishes of every publisher await an ack.
func (f *fleet) inFlight() int {
	n := 0
	for _, p := range f.pubs {
		n += p.inFlight()
	}
	return n
}

// acked merges every publisher's acknowledged ids, once publishing stopped.
func (f *fleet) acked() *msgid.Set {
	out := &msgid.Set{}
	for _, p := range f.pubs {
		p.mu.Lock()
		out.Merge(&p.acked)
		p.mu.Unlock()
	}
	return out
}

// abandon records what every publisher still awaits as indeterminate.
func (f *fleet) abandon() {
	now := time.Now()
	for _, p := range f.pubs {
		p.abandon(now)
	}
}

func (f *fleet) close() {
	if f.stop != nil {
		f.stop()
	}
	for _, p := range f.pubs {
		p.nc.Close()
	}
}
