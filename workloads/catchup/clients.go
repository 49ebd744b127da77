package catchup

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/jetstream-chaos/jetstream-chaos/client"
	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/internal/bytesize"
	"github.com/jetstream-chaos/jetstream-chaos/internal/ctxtime"
	"github.com/jetstream-chaos/jetstream-chaos/nemesis"
)

// reconnectBuf is what every catchup connection buffers while it
// reconnects, 32 MiB where nats.go's default is 8 MiB: a publisher keeps up
// to --window publishes of --payload in flight.
var reconnectBuf = nats.ReconnectBufSize(32 << 20)

func (r *cell) others() []int {
	var out []int
	for i := range r.c.Nodes() {
		if i != r.target {
			out = append(out, i)
		}
	}
	return out
}

// createStream creates the stream and picks the target on a connection of
// its own: the admin's connects to the target last, so it waits for the pick.
func (r *cell) createStream(ctx context.Context) error {
	nodes := r.c.Nodes()
	nc, err := client.Connect(nodes, client.Order(0, len(nodes)), "catchup-setup", reconnectBuf)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	cfg := jetstream.StreamConfig{
		Name:        r.opts.Stream,
		Subjects:    []string{strings.ToLower(r.opts.Stream) + ".>"},
		Replicas:    3,
		Storage:     jetstream.FileStorage,
		AllowDirect: r.opts.DirectGet,
	}
	// Every replica must be there before the fill, or the fill itself is a
	// catch-up.
	if _, err := client.CreateStream(ctx, js, cfg, 60*time.Second); err != nil {
		return err
	}
	return r.chooseTarget(ctx, js)
}

func (r *cell) index(name string) int {
	for i, n := range r.c.Nodes() {
		if n.Name == name {
			return i
		}
	}
	return -1
}

const infoTimeout = 5 * time.Second

// streamInfo asks through the admin connection.
func (r *cell) streamInfo(ctx context.Context) (*jetstream.StreamInfo, error) {
	return client.StreamInfo(ctx, r.js, r.opts.Stream, infoTimeout)
}

// chooseTarget picks the node to wipe: the stream leader, or a follower
// that is not the meta leader when there is one.
func (r *cell) chooseTarget(ctx context.Context, js jetstream.JetStream) error {
	leader, err := client.StreamLeader(ctx, js, r.opts.Stream, infoTimeout)
	if err != nil {
		return err
	}
	if r.opts.Target == Leader {
		r.target = r.index(leader)
	} else {
		meta, _ := nemesis.MetaLeader(ctx, cluster.Monitor{}, r.c.Nodes()) // "" when none answers: any follower
		r.target = -1
		for i := len(r.c.Nodes()) - 1; i >= 0; i-- { // the last node first: a stable choice
			name := r.c.Nodes()[i].Name
			if name == leader {
				continue
			}
			if r.target < 0 || (name != meta && r.c.Nodes()[r.target].Name == meta) {
				r.target = i
			}
		}
	}
	if r.target < 0 {
		return fmt.Errorf("no %s to target (stream leader %q)", r.opts.Target, leader)
	}
	r.res.Target = r.c.Nodes()[r.target].Name
	r.logf("stream %s R3, leader %s; target %s (%s)", r.opts.Stream, leader, r.res.Target, r.opts.Target)
	return nil
}

// connect opens the admin connection and the publishers on the nodes other
// than the target, so its death does not cut them off.
func (r *cell) connect() error {
	nodes := r.c.Nodes()
	order := append(r.others(), r.target)
	var err error
	if r.admin, err = client.Connect(nodes, order, "catchup-admin", reconnectBuf); err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	if r.js, err = jetstream.New(r.admin); err != nil {
		return err
	}
	r.fleet = &fleet{stats: newPubStats()}
	payload := randomPayload(int(r.opts.Payload), uint64(r.t0.UnixNano()))
	subject := strings.ToLower(r.opts.Stream) + ".data"
	rctx, stop := context.WithCancel(context.Background())
	r.fleet.stop = stop
	others := r.others()
	for p := range r.opts.Publishers {
		first := others[p%len(others)]
		ord := []int{first}
		for _, i := range order {
			if i != first {
				ord = append(ord, i)
			}
		}
		nc, err := client.Connect(nodes, ord, fmt.Sprintf("catchup-pub%d", p), reconnectBuf)
		if err != nil {
			return fmt.Errorf("publisher %d: connect: %w", p, err)
		}
		pub, err := newPublisher(nc, p, subject, payload, r.opts.Window, r.opts.PublishTimeout, r.fleet.stats, &r.ph, r.rec)
		if err != nil {
			nc.Close()
			return fmt.Errorf("publisher %d: %w", p, err)
		}
		r.fleet.pubs = append(r.fleet.pubs, pub)
		go pub.reap(rctx)
	}
	return nil
}

func (r *cell) closeClients() {
	if r.fleet != nil {
		r.fleet.close()
	}
	if r.reader != nil {
		r.reader.nc.Close()
	}
	if r.admin != nil {
		r.admin.Close()
	}
}

// fill publishes --backlog bytes as fast as acks come back.
func (r *cell) fill(ctx context.Context) error {
	o := r.opts
	r.logf("filling %s of %s messages with %d publishers", o.Backlog, o.Payload, o.Publishers)
	// Only acknowledged bytes count: a failed publish is not in the stream.
	// What is in flight counts as if it will be acknowledged, so the fill
	// overshoots by at most a window.
	more := func() bool {
		return r.fleet.stats.ackedBytes()+int64(r.fleet.inFlight()+1)*int64(o.Payload) <= int64(o.Backlog)
	}
	start := time.Now()
	progress, stop := context.WithCancel(ctx)
	defer stop()
	go func() {
		for ctxtime.Sleep(progress, 5*time.Second) {
			acked := r.fleet.stats.ackedBytes()
			r.logf("  fill: %s acked (%.0f MB/s)", bytesize.Bytes(acked), float64(acked)/1e6/time.Since(start).Seconds())
		}
	}()
	// Rounds: publishers stop when what is acked and in flight reaches the
	// backlog; if some of it then fails, another round tops it up.
	for round := 0; ; round++ {
		before := r.fleet.stats.ackedBytes()
		r.fleet.run(ctx, 0, more)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		acked := r.fleet.stats.ackedBytes()
		if acked+int64(o.Payload) > int64(o.Backlog) {
			break
		}
		if acked == before {
			if round >= 20 {
				return fmt.Errorf("the fill stalled at %s of %s: nothing acknowledged in 20 rounds", bytesize.Bytes(acked), o.Backlog)
			}
			time.Sleep(500 * time.Millisecond)
		}
	}
	stop()
	info, err := r.streamInfo(ctx)
	if err != nil {
		return fmt.Errorf("stream info after the fill: %w", err)
	}
	took := time.Since(start)
	st := &r.res.Stream
	st.FillMsgs, st.FillBytes = info.State.Msgs, info.State.Bytes
	st.FillMBps = float64(info.State.Bytes) / 1e6 / took.Seconds()
	_, acked, failed, timedOut := r.fleet.stats.counts()
	r.logf("filled: %d msgs, %s stored in %.1fs (%.0f MB/s); %d acked, %d failed, %d timed out",
		info.State.Msgs, bytesize.Bytes(info.State.Bytes), took.Seconds(), st.FillMBps, acked, failed, timedOut)
	if info.State.Msgs == 0 {
		return errors.New("the fill stored nothing")
	}
	return nil
}

// startLive publishes at --rate in the background until stopLive.
func (r *cell) startLive(ctx context.Context) {
	if r.opts.Rate == 0 {
		r.liveStop = func() {}
		return
	}
	lctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.fleet.run(lctx, float64(r.opts.Rate), func() bool { return true })
	}()
	var once sync.Once
	r.liveStop = func() {
		once.Do(func() {
			cancel()
			<-done
			r.logf("publishing stopped")
		})
	}
}

func (r *cell) stopLive() {
	if r.liveStop != nil {
		r.liveStop()
	}
}
