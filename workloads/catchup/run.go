package catchup

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/cluster/serverbin"
	"github.com/jetstream-chaos/jetstream-chaos/nemesis"
	"github.com/jetstream-chaos/jetstream-chaos/workloads"
)

// newCell prepares one catch-up cell on env's started cluster (see
// Options.ClusterConfig for how it should be started); the cell's files go
// into env.Dir.
func newCell(opts Options, env *workloads.Env) *cell {
	c := env.Cluster
	r := &cell{c: c, opts: opts, dir: env.Dir, say: env.Logf, phaseHook: env.Phase, t0: time.Now()}
	r.res = Result{Options: r.opts, Runtime: c.Runtime(), Cluster: c.Config(), Nodes: c.Nodes(),
		ServerVersion: c.Config().ServerVersion, GoMemLimit: c.Config().GoMemLimitFor(),
		StartedAt: r.t0, Dir: env.Dir, TargetRole: r.opts.Target}
	if r.res.ServerVersion == "" { // the local runtime runs the pinned default without saying so
		r.res.ServerVersion = serverbin.DefaultVersion()
	}
	r.res.Stream.Name, r.res.Stream.AllowDirect = r.opts.Stream, r.opts.DirectGet
	r.res.CatchUp.Bound = r.opts.CatchupTimeout
	return r
}

// cell is one catch-up cell in progress.
type cell struct {
	c         cluster.Cluster
	opts      Options
	dir       string
	say       func(format string, args ...any)
	phaseHook func(string)
	t0        time.Time
	res       Result

	obs    *observer
	admin  *nats.Conn
	js     jetstream.JetStream
	fleet  *fleet
	reader *reader
	target int
	asked  []Event
	ph     phaseNow
	held   *nemesis.Held // the catch-up fault, from the kill to the restart

	phaseName  Phase
	phaseStart int64

	liveStop func() // stops publishing at --rate and waits for in-flight acks
	readStop func()
	base     cluster.NodeState // the target's State right after its restart
}

func (r *cell) logf(format string, args ...any) {
	if r.say != nil {
		r.say("catchup %6.1fs: %s", time.Since(r.t0).Seconds(), fmt.Sprintf(format, args...))
	}
}

func (r *cell) now() int64 { return since(r.t0) }

// phase closes the current phase and opens p ("" closes only).
func (r *cell) phase(p Phase) {
	now := r.now()
	if r.phaseName != "" {
		r.res.Phases = append(r.res.Phases, PhaseTime{Name: r.phaseName, StartMs: r.phaseStart, EndMs: now,
			Seconds: float64(now-r.phaseStart) / 1000})
	}
	r.phaseName, r.phaseStart = p, now
	if p != "" {
		r.ph.set(p)
		if r.phaseHook != nil {
			r.phaseHook(string(p))
		}
	}
}

func (r *cell) event(i int, kind EventKind, detail string) {
	e := Event{TMs: r.now(), Node: r.c.Nodes()[i].Name, Kind: kind, Detail: detail}
	r.asked = append(r.asked, e)
}

func (r *cell) note(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	r.res.Notes = append(r.res.Notes, s)
	r.logf("note: %s", s)
}

// setup creates the stream, picks the target and connects the publishers
// on the other nodes; the samplers start here and run through the heal.
func (r *cell) setup(ctx context.Context) error {
	o := r.opts
	if err := o.Validate(len(r.c.Nodes())); err != nil {
		return err
	}
	if err := o.Refuse(r.c.Supports); err != nil {
		return err
	}
	if err := os.MkdirAll(r.dir, 0o755); err != nil {
		return err
	}
	r.checkConfig()
	r.logf("%s", o.Describe())
	r.obs = newObserver(r.c, r.t0, o.SampleInterval, o.Stream)
	r.obs.start(context.WithoutCancel(ctx)) // samples through the heal, even after Ctrl-C
	r.phase(PhaseFill)
	if err := r.createStream(ctx); err != nil {
		return err
	}
	if err := r.chooseTarget(ctx); err != nil {
		return err
	}
	return r.connect()
}

// run is the cell's traffic and its fault: fill, kill and wipe the target
// (the scripted catch-up fault), publish while it is down, restart it under
// the limit (the fault's heal), wait, bounded, until it is current, settle,
// then lift the limit and make sure it runs.
func (r *cell) run(ctx context.Context, faults *nemesis.Script) error {
	if err := r.fill(ctx); err != nil {
		return err
	}
	r.startLive(ctx)
	if err := r.takeDown(ctx, faults); err != nil {
		r.stopLive()
		r.heal(ctx)
		return err
	}
	r.phase(PhaseCatchup)
	if err := r.restart(ctx); err != nil {
		r.stopLive()
		r.heal(ctx)
		return err
	}
	r.waitCurrent(ctx)
	r.stopLive()
	if r.readStop != nil {
		r.readStop()
	}
	r.heal(ctx)
	return nil
}

// checkConfig notes where the cluster was not started as ClusterConfig
// says: the run goes on, and the record shows what really ran.
func (r *cell) checkConfig() {
	cfg := r.c.Config()
	want := r.opts.ClusterConfig(cfg)
	if got, w := cfg.GoMemLimitFor(), want.GoMemLimitFor(); got != w {
		r.note("the nodes run with GOMEMLIMIT %s, the --gomemlimit policy asks for %s (start the cluster with Options.ClusterConfig)", gml(got), gml(w))
	}
	if cfg.MemoryLimit > 0 {
		r.note("every node was started with a %s memory limit; the healthy nodes are limited too", Bytes(cfg.MemoryLimit))
	}
	if !cfg.AutoRestart {
		r.note("the cluster has no AutoRestart: a node that dies stays down, so a crash loop cannot show")
	}
	if cfg.StoreOnTmpfs {
		r.note("stores are on tmpfs: they count against memory, which changes what is measured")
	}
	if cfg.MaxOutstandingCatchup != int64(r.opts.MaxOutstandingCatchup) {
		r.note("the nodes run with max_outstanding_catchup %s, not the %s asked", Bytes(cfg.MaxOutstandingCatchup), r.opts.MaxOutstandingCatchup)
	}
}

func gml(b int64) string {
	if b <= 0 {
		return "unset"
	}
	return Bytes(b).String()
}

// dial connects to the nodes in order (the first is preferred), never to
// addresses the servers advertise.
func dial(nodes []cluster.Node, order []int, name string) (*nats.Conn, error) {
	urls := make([]string, 0, len(order))
	for _, i := range order {
		urls = append(urls, nodes[i].ClientURL)
	}
	return nats.Connect(strings.Join(urls, ","),
		nats.Name(name),
		nats.DontRandomize(),
		nats.IgnoreDiscoveredServers(),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(250*time.Millisecond),
		nats.Timeout(2*time.Second),
		nats.ReconnectBufSize(32<<20),
	)
}

func (r *cell) others() []int {
	var out []int
	for i := range r.c.Nodes() {
		if i != r.target {
			out = append(out, i)
		}
	}
	return out
}

func (r *cell) createStream(ctx context.Context) error {
	nodes := r.c.Nodes()
	nc, err := dial(nodes, seq(len(nodes)), "catchup-setup")
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
	var last error
	for range 20 { // a fresh cluster may still be settling its meta leader
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		_, last = js.CreateStream(cctx, cfg)
		cancel()
		if last == nil || ctx.Err() != nil {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	if last != nil {
		return fmt.Errorf("create stream %s: %w", r.opts.Stream, last)
	}
	// Every replica must be there before the fill, or the fill itself is a
	// catch-up.
	deadline := time.Now().Add(60 * time.Second)
	for {
		ictx, cancel := context.WithTimeout(ctx, 5*time.Second)
		s, err := js.Stream(ictx, r.opts.Stream)
		cancel()
		if err == nil {
			info := s.CachedInfo()
			if info.Config.AllowDirect != r.opts.DirectGet {
				return fmt.Errorf("stream %s has allow_direct %v, asked %v", r.opts.Stream, info.Config.AllowDirect, r.opts.DirectGet)
			}
			if ci := info.Cluster; ci != nil && ci.Leader != "" && len(ci.Replicas) == 2 && ci.Replicas[0].Current && ci.Replicas[1].Current {
				return nil
			}
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("stream %s has no leader with 2 current replicas after 60s (last: %v)", r.opts.Stream, err)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

func (r *cell) index(name string) int {
	for i, n := range r.c.Nodes() {
		if n.Name == name {
			return i
		}
	}
	return -1
}

// streamLeader names the stream leader as the first answering node's
// stream info sees it.
func (r *cell) streamLeader(ctx context.Context) (string, error) {
	s, err := r.streamInfo(ctx)
	if err != nil {
		return "", err
	}
	if s.Cluster == nil || s.Cluster.Leader == "" {
		return "", errors.New("stream info names no leader")
	}
	return s.Cluster.Leader, nil
}

// streamInfo asks through the admin connection once there is one.
func (r *cell) streamInfo(ctx context.Context) (*jetstream.StreamInfo, error) {
	js := r.js
	if js == nil {
		nc, err := dial(r.c.Nodes(), seq(len(r.c.Nodes())), "catchup-info")
		if err != nil {
			return nil, err
		}
		defer nc.Close()
		if js, err = jetstream.New(nc); err != nil {
			return nil, err
		}
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	s, err := js.Stream(ctx, r.opts.Stream)
	if err != nil {
		return nil, err
	}
	return s.CachedInfo(), nil
}

// chooseTarget picks the node to wipe: the stream leader, or a follower
// that is not the meta leader when there is one.
func (r *cell) chooseTarget(ctx context.Context) error {
	leader, err := r.streamLeader(ctx)
	if err != nil {
		return err
	}
	if r.opts.Target == Leader {
		r.target = r.index(leader)
	} else {
		meta := ""
		for _, n := range r.c.Nodes() {
			if j, err := cluster.GetJsz(ctx, n); err == nil && j.Meta != nil && j.Meta.Leader != "" {
				meta = j.Meta.Leader
				break
			}
		}
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
	if r.admin, err = dial(nodes, order, "catchup-admin"); err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	if r.js, err = jetstream.New(r.admin); err != nil {
		return err
	}
	r.fleet = &fleet{stats: newPubStats(r.t0)}
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
		nc, err := dial(nodes, ord, fmt.Sprintf("catchup-pub%d", p))
		if err != nil {
			return fmt.Errorf("publisher %d: connect: %w", p, err)
		}
		pub, err := newPublisher(nc, p, subject, payload, r.opts.Window, r.opts.PublishTimeout, r.fleet.stats, &r.ph)
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
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(5 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				s := r.fleet.stats.summary()
				r.logf("  fill: %s acked (%.0f MB/s)", Bytes(s.AckedB), float64(s.AckedB)/1e6/time.Since(start).Seconds())
			}
		}
	}()
	// Rounds: publishers stop when what is acked and in flight reaches the
	// backlog; if some of it then fails, another round tops it up.
	for round := 0; ; round++ {
		before := r.fleet.stats.ackedBytes()
		r.fleet.run(ctx, 0, more)
		if ctx.Err() != nil {
			close(done)
			return ctx.Err()
		}
		acked := r.fleet.stats.ackedBytes()
		if acked+int64(o.Payload) > int64(o.Backlog) {
			break
		}
		if acked == before {
			if round >= 20 {
				close(done)
				return fmt.Errorf("the fill stalled at %s of %s: nothing acknowledged in 20 rounds", Bytes(acked), o.Backlog)
			}
			time.Sleep(500 * time.Millisecond)
		}
	}
	close(done)
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
		info.State.Msgs, Bytes(info.State.Bytes), took.Seconds(), st.FillMBps, acked, failed, timedOut)
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

// takeDown injects the catch-up fault on the target (kill, wait until it
// is down, wipe its store as a new volume, put its memory limit on) and
// keeps publishing for --down.
func (r *cell) takeDown(ctx context.Context, faults *nemesis.Script) error {
	o := r.opts
	if o.Target == Leader { // it may have moved during the fill
		if l, err := r.streamLeader(ctx); err == nil && r.index(l) >= 0 && r.index(l) != r.target {
			r.note("the stream leader moved to %s during the fill; targeting it", l)
			r.target, r.res.Target = r.index(l), l
		}
	}
	if l, err := r.streamLeader(ctx); err == nil {
		r.res.LeaderAtKill = l
	}
	name := r.res.Target
	r.phase(PhaseDown)
	r.obs.watchTarget(context.Background(), r.target, r.streamInfo)
	r.event(r.target, EvKill, "")
	killed := time.Now()
	held, err := faults.Inject(ctx, nemesis.Rebuild{Node: r.target, MemoryLimit: int64(o.MemoryLimit)})
	r.held = held
	if err != nil {
		return fmt.Errorf("catch-up fault on %s: %w", name, err)
	}
	r.event(r.target, EvWipe, "store deleted, as a new volume")
	if o.MemoryLimit > 0 {
		r.event(r.target, EvLimit, o.MemoryLimit.String())
		r.obs.limit(r.target, int64(o.MemoryLimit))
	}
	r.logf("%s killed and wiped%s; publishing %s/s for %s", name, limitNote(o.MemoryLimit), o.Rate, o.Down)
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(time.Until(killed.Add(o.Down))):
	}
	return nil
}

func limitNote(l Bytes) string {
	if l <= 0 {
		return ""
	}
	return ", memory limit " + l.String() + " set"
}

// restart starts the target and the reader on it.
func (r *cell) restart(ctx context.Context) error {
	// The stream's size now is what the target must catch up. The lag
	// sampler has been reading it from the leader since the kill; asking
	// again here could hold the restart up for seconds while a killed
	// leader's successor is elected.
	if ls, ok := r.obs.lastLeaderView(); ok {
		r.res.Stream.RestartMsgs, r.res.Stream.RestartBytes = ls.LeaderMsgs, ls.LeaderBytes
	}
	r.res.CatchUp.RestartAtMs = r.now()
	r.event(r.target, EvStart, "")
	w := r.held.Heal(ctx) // the fault's heal: start it, check it runs with routes
	if !w.Injected {
		return fmt.Errorf("start %s: %s", r.res.Target, w.Detail)
	}
	st0, err := r.c.State(ctx, r.target)
	if err != nil || !st0.Running {
		return fmt.Errorf("start %s: not running after the heal: %s", r.res.Target, w.Detail)
	}
	if r.res.Stream.RestartBytes == 0 { // no view yet: ask now, after the start
		for range 10 {
			if info, err := r.streamInfo(ctx); err == nil {
				r.res.Stream.RestartMsgs, r.res.Stream.RestartBytes = info.State.Msgs, info.State.Bytes
				break
			}
		}
	}
	st, err := r.c.State(ctx, r.target)
	if err != nil {
		return fmt.Errorf("state of %s: %w", r.res.Target, err)
	}
	r.base = st
	r.logf("%s restarted empty; %s to catch up (%d msgs); waiting until current (bound %s)",
		r.res.Target, Bytes(r.res.Stream.RestartBytes), r.res.Stream.RestartMsgs, r.opts.CatchupTimeout)
	if r.opts.WriteFor > 0 && r.opts.Rate > 0 {
		// The timer calls the captured stop, never r.liveStop, which this
		// goroutine reassigns.
		stop := r.liveStop
		t := time.AfterFunc(r.opts.WriteFor, stop)
		r.liveStop = func() { t.Stop(); stop() }
	}
	if r.opts.ReadRate > 0 {
		nc, err := dial(r.c.Nodes(), []int{r.target}, "catchup-reader")
		if err == nil {
			// Bound while it may still be down: the handle's cached info
			// carries allow_direct, which picks direct or leader gets.
			rs, serr := r.readerStream(ctx, nc)
			if serr != nil {
				nc.Close()
				r.note("reader not started: %v", serr)
				return nil
			}
			r.reader = &reader{nc: nc, stream: rs, t0: r.t0, last: r.fleet.stats.lastSeq}
			rctx, cancel := context.WithCancel(ctx)
			done := make(chan struct{})
			go func() { defer close(done); r.reader.run(rctx, r.opts.ReadRate) }()
			r.readStop = func() { cancel(); <-done }
		} else {
			r.note("reader not started: %v", err)
		}
	}
	return nil
}

// readerStream binds the stream on the reader's connection; the target may
// take a while to answer, so this retries for a few seconds and falls back
// to a handle made from the admin's stream info.
func (r *cell) readerStream(ctx context.Context, nc *nats.Conn) (jetstream.Stream, error) {
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	var last error
	for range 20 {
		sctx, cancel := context.WithTimeout(ctx, time.Second)
		s, err := js.Stream(sctx, r.opts.Stream)
		cancel()
		if err == nil {
			return s, nil
		}
		last = err
		time.Sleep(250 * time.Millisecond)
	}
	return nil, last
}

// waitCurrent waits until the target is current, the bound passes, it is in
// a crash loop, or it is down for good. With --write-for, publishing goes on
// for that long after the restart whatever happens; then --settle more.
func (r *cell) waitCurrent(ctx context.Context) {
	o := r.opts
	cu := &r.res.CatchUp
	restart := r.t0.Add(time.Duration(cu.RestartAtMs) * time.Millisecond)
	deadline := restart.Add(o.CatchupTimeout)
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	lastStatus := time.Now()
	seenLag := 0
	var downSince time.Time
	for {
		select {
		case <-ctx.Done():
			cu.Outcome, cu.Detail = OutcomeInterrupted, "interrupted while catching up"
			r.endCatchup(restart)
			return
		case <-tick.C:
		}
		if cur, prev, n := r.obs.lastLag(); n > seenLag {
			seenLag = n
			r.track(cur, prev)
			if cu.CurrentAtMs > 0 {
				cu.Outcome = OutcomeCurrent
				cu.Detail = fmt.Sprintf("holds last seq %d, the leader had %d; /healthz OK", cur.TargetLastSeq, prev.LeaderLastSeq)
				r.endCatchup(restart)
				r.logf("%s current after %.1fs", r.res.Target, cu.Seconds)
				r.settle(ctx)
				return
			}
		}
		st := r.obs.lastState(r.target)
		if restarts := st.Restarts - r.base.Restarts; restarts >= o.CrashLoop {
			cu.Outcome = OutcomeCrashLoop
			cu.Detail = fmt.Sprintf("%s restarted by the runtime %d times (%d OOM kills) since its restart", r.res.Target, restarts, st.OOMKills-r.base.OOMKills)
			r.endCatchup(restart)
			r.logf("crash loop: %s; giving up the wait", cu.Detail)
			r.stopLive()
			r.watchMore(ctx, 5*time.Second) // catch a few more restarts for the record
			return
		}
		if !st.Running && !st.StartedAt.IsZero() {
			if downSince.IsZero() {
				downSince = time.Now()
			}
			if !r.c.Config().AutoRestart && time.Since(downSince) > 5*time.Second {
				cu.Outcome = OutcomeDown
				cu.Detail = fmt.Sprintf("%s died (exit %d, OOM killed %v) and nothing restarts it", r.res.Target, st.ExitCode, st.OOMKilled)
				r.endCatchup(restart)
				r.logf("%s", cu.Detail)
				return
			}
		} else {
			downSince = time.Time{}
		}
		if time.Now().After(deadline) {
			cur, _, _ := r.obs.lastLag()
			cu.Outcome = OutcomeTimeout
			cu.Detail = fmt.Sprintf("after %s: %d msgs behind the leader, /healthz: %s", o.CatchupTimeout, cur.Behind, orOK(cur.TargetHealth))
			r.endCatchup(restart)
			r.logf("not current within %s: %s", o.CatchupTimeout, cu.Detail)
			return
		}
		if time.Since(lastStatus) >= 5*time.Second {
			lastStatus = time.Now()
			r.status(st)
		}
	}
}

func orOK(s string) string {
	if s == "" {
		return "OK"
	}
	return s
}

// track updates the catch-up milestones from a new lag sample.
func (r *cell) track(cur, prev LagSample) {
	cu := &r.res.CatchUp
	if cur.TargetHas && cu.FirstSeenAtMs == 0 {
		cu.FirstSeenAtMs = cur.TMs
	}
	// Only while the target answers with its copy: a node that is down or
	// still loading its store says nothing about how far behind it is.
	if cur.TargetHas && cur.TMs >= cu.RestartAtMs {
		cu.MaxBehind = max(cu.MaxBehind, cur.Behind)
	}
	// Caught up on data: the target holds what the leader held one sample
	// (half a second) earlier; with writes going on, equality with the
	// same instant is a race.
	ref := prev.LeaderLastSeq
	if ref == 0 {
		ref = cur.LeaderLastSeq
	}
	data := cur.TargetHas && ref > 0 && cur.TargetLastSeq >= ref
	if data && cu.DataAtMs == 0 {
		cu.DataAtMs = cur.TMs
	}
	if data && cur.TargetHealthy && cu.CurrentAtMs == 0 {
		cu.CurrentAtMs = cur.TMs
	}
}

func (r *cell) endCatchup(restart time.Time) {
	cu := &r.res.CatchUp
	cu.Completed = cu.Outcome == OutcomeCurrent
	end := r.now()
	if cu.Completed {
		end = cu.CurrentAtMs
	}
	cu.Seconds = float64(end-cu.RestartAtMs) / 1000
}

// settle keeps publishing until --write-for is over and watches --settle
// more: the jump the report saw came right after the catch-up ended.
func (r *cell) settle(ctx context.Context) {
	o := r.opts
	r.phase(PhaseSettle)
	if o.WriteFor == 0 {
		r.stopLive()
	}
	restart := r.t0.Add(time.Duration(r.res.CatchUp.RestartAtMs) * time.Millisecond)
	writesEnd := restart.Add(o.WriteFor)
	if o.WriteFor > 0 && time.Now().Before(writesEnd) {
		r.logf("publishing goes on until %s after the restart", o.WriteFor)
		if !r.watchUntil(ctx, writesEnd) {
			return
		}
		r.stopLive()
	}
	r.logf("watching %s more", o.Settle)
	r.watchUntil(ctx, time.Now().Add(o.Settle))
}

// watchUntil waits until t, printing status, and stops early (false) on a
// crash loop or ctx.
func (r *cell) watchUntil(ctx context.Context, t time.Time) bool {
	last := time.Now()
	for time.Now().Before(t) {
		select {
		case <-ctx.Done():
			return false
		case <-time.After(250 * time.Millisecond):
		}
		st := r.obs.lastState(r.target)
		if restarts := st.Restarts - r.base.Restarts; restarts >= r.opts.CrashLoop {
			r.logf("crash loop after the catch-up: %s restarted %d times", r.res.Target, restarts)
			r.stopLive()
			return false
		}
		if time.Since(last) >= 5*time.Second {
			last = time.Now()
			r.status(st)
		}
	}
	return true
}

// watchMore keeps sampling for d without judging.
func (r *cell) watchMore(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

func (r *cell) status(st cluster.NodeState) {
	cur, _, _ := r.obs.lastLag()
	_, acked, failed, timedOut := r.fleet.stats.counts()
	h := "healthy"
	if !cur.TargetHealthy {
		h = "unhealthy: " + oneLine(cur.TargetHealth, 60)
	}
	r.logf("  %s rss %s, %d msgs behind (leader last %d), %s; restarts %d, OOM kills %d; publishes ok %d failed %d timed out %d",
		r.res.Target, Bytes(r.obs.lastRSS(r.target)), cur.Behind, cur.LeaderLastSeq, h,
		st.Restarts-r.base.Restarts, st.OOMKills-r.base.OOMKills, acked, failed, timedOut)
}

// heal lifts the target's limit and makes sure it runs (a node in a crash
// loop may be between restarts); the pipeline then waits, bounded, until
// every replica is current.
func (r *cell) heal(ctx context.Context) {
	ctx = context.WithoutCancel(ctx)
	r.phase(PhaseHeal)
	if r.held != nil {
		r.held.Heal(ctx) // a no-op once the restart healed it
	}
	if r.opts.MemoryLimit > 0 {
		if err := r.c.SetMemoryLimit(ctx, r.target, 0); err != nil {
			r.note("lift the memory limit of %s: %v", r.res.Target, err)
		} else {
			r.event(r.target, EvLimit, "none")
			r.obs.limit(r.target, 0)
		}
	}
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		st, err := r.c.State(ctx, r.target)
		if err == nil && st.Running {
			break
		}
		if err == nil {
			if err := r.c.Start(ctx, r.target); err == nil {
				r.event(r.target, EvStart, "heal")
			} else if time.Until(deadline) < time.Second {
				r.note("start %s at the heal: %v", r.res.Target, err)
			}
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// verify compares the replicas and reads every id back.
func (r *cell) verify(ctx context.Context) {
	r.phase(PhaseVerify)
	in := &r.res.Integrity
	in.Replicas = r.obs.replicas(ctx, 30*time.Second)
	in.ReplicasAgree, in.ReplicasDetail = Agreement(in.Replicas)
	r.logf("replicas: %s", in.ReplicasDetail)
	acked := r.fleet.acked()
	r.logf("reading the stream back (headers only, bound %s)", r.opts.VerifyTimeout)
	got, read := readBack(ctx, r.js, r.opts.Stream, r.opts.VerifyTimeout)
	read.Replicas, read.ReplicasAgree, read.ReplicasDetail = in.Replicas, in.ReplicasAgree, in.ReplicasDetail
	*in = read
	in.Acked = acked.Len()
	in.Distinct = got.Len()
	var examples []ID
	in.Missing, in.Unacked, examples = Diff(acked, got, 10)
	for _, id := range examples {
		in.MissingExamples = append(in.MissingExamples, id.String())
	}
	in.BitmapBytes = acked.Bytes() + got.Bytes()
	r.logf("read back: %s; %d acked, %d missing, %d unacked present", in.ReadDetail, in.Acked, in.Missing, in.Unacked)
	if info, err := r.streamInfo(ctx); err == nil {
		r.res.Stream.FinalMsgs, r.res.Stream.FinalBytes = info.State.Msgs, info.State.Bytes
	}
}

// finish stops the samplers and fills in the derived figures; the checks
// are made later, from the files (see Check).
func (r *cell) finish() {
	r.phase("")
	if r.obs != nil {
		r.obs.stop()
		r.collect()
	}
}

// collect moves the observer's series into the result and derives peaks,
// events and the catch-up's before/after peaks.
func (r *cell) collect() {
	o := r.obs
	o.mu.Lock()
	defer o.mu.Unlock()
	r.res.Lag, r.res.Health, r.res.States = o.lag, o.health, o.states
	r.res.Memory = o.mem
	r.res.Events = append(DetectEvents(o.states, r.asked), r.asked...)
	sortEvents(r.res.Events)
	r.res.Deaths = Summarize(r.res.Events, r.opts.CrashLoop)
	if r.fleet != nil {
		r.res.Publish = r.fleet.stats.summary()
		r.res.Publish.AckedMBps = map[Phase]float64{}
		for _, ph := range r.res.Phases {
			if l, ok := r.res.Publish.Latency[ph.Name]; ok && ph.Seconds > 0 {
				r.res.Publish.AckedMBps[ph.Name] = round3(float64(l.Count) * float64(r.opts.Payload) / 1e6 / ph.Seconds)
			}
		}
	}
	if r.reader != nil {
		r.res.Reads = r.reader.summary()
	}
	// Peaks over the catch-up: from the restart to the end of the settle
	// (or of the wait); the fill is the baseline, not the subject.
	from, to := r.res.CatchUp.RestartAtMs, r.windowEnd()
	size := float64(r.res.Stream.RestartBytes)
	for i := range r.res.Memory {
		m := &r.res.Memory[i]
		if from > 0 {
			m.PeakUsage, m.PeakUsageAt = m.Usage.PeakBetween(from, to)
			m.PeakRSS, m.PeakRSSAt = m.RSS.PeakBetween(from, to)
		} else {
			m.PeakUsage, m.PeakUsageAt = m.Usage.Peak()
			m.PeakRSS, m.PeakRSSAt = m.RSS.Peak()
		}
		if size > 0 {
			m.PeakUsageRatio = round3(float64(m.PeakUsage) / size)
			m.PeakRSSRatio = round3(float64(m.PeakRSS) / size)
		}
	}
	cu := &r.res.CatchUp
	if t := r.targetMem(); t != nil && from > 0 {
		mid := to
		if cu.CurrentAtMs > 0 {
			mid = cu.CurrentAtMs
		}
		cu.PeakRSSDuring, _ = t.RSS.PeakBetween(from, mid+1)
		cu.PeakUsageDuring, _ = t.Usage.PeakBetween(from, mid+1)
		if cu.CurrentAtMs > 0 {
			cu.PeakRSSAfter, _ = t.RSS.PeakBetween(mid, to)
			cu.PeakUsageAfter, _ = t.Usage.PeakBetween(mid, to)
		}
	}
}

// windowEnd is the end of the measured window: the start of the heal, or
// now.
func (r *cell) windowEnd() int64 {
	if h := r.res.Phase(PhaseHeal); h.Name != "" {
		return h.StartMs
	}
	return r.now() + 1
}

func (r *cell) targetMem() *NodeMemory {
	for i := range r.res.Memory {
		if r.res.Memory[i].Node == r.res.Target {
			return &r.res.Memory[i]
		}
	}
	return nil
}

func round3(f float64) float64 { return float64(int64(f*1000+0.5)) / 1000 }

// dirFile is a path in the cell's dir.
func (r *cell) dirFile(name string) string { return filepath.Join(r.dir, name) }
