package schedule

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/jetstream-chaos/jetstream-chaos/client"
	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/history"
	"github.com/jetstream-chaos/jetstream-chaos/nemesis"
	"github.com/jetstream-chaos/jetstream-chaos/workloads"
)

// Options are one schedule cell's settings, as run.json records them.
type Options struct {
	Stream    string        `json:"stream"`
	Retention string        `json:"retention"` // RetentionLimits or RetentionWorkQueue
	Replicas  int           `json:"replicas"`
	Clients   int           `json:"clients"`    // one-shot schedulers on each node
	Ahead     time.Duration `json:"ahead"`      // a one-shot is due this far ahead
	Pause     time.Duration `json:"pause"`      // between one scheduler's creates
	Repeating int           `json:"repeating"`  // @every schedules
	Every     time.Duration `json:"every"`      // their period
	FireBound time.Duration `json:"fire_bound"` // lateness allowed away from faults
	FireGrace time.Duration `json:"fire_grace"` // lateness allowed after a fault window
	Seed      uint64        `json:"seed"`
}

// ScheduleSubject and TargetSubject are schedule id's subjects.
func (o Options) ScheduleSubject(id string) string { return o.Stream + ".sched." + id }
func (o Options) TargetSubject(id string) string   { return o.Stream + ".target." + id }

// instance is a schedule cell on a running cluster.
type instance struct {
	o     Options
	env   *workloads.Env
	nodes []cluster.Node
	admin *nats.Conn
	js    jetstream.JetStream
	conns client.Conns

	watchStop context.CancelFunc
	watchDone chan struct{}

	mu      sync.Mutex
	waiting map[string]int64 // acknowledged one-shots not yet seen fired: their due times
	seen    map[uint64]bool  // target sequences the live consumer read
	lastDue int64
	repeats []string // the repeating schedules' subjects

	// script hears every due time, so faults aimed at them land (@due).
	script *nemesis.Script
}

// setup creates the streams, asked again while the answer is transient.
func setup(ctx context.Context, o Options, env *workloads.Env) (*instance, error) {
	i := &instance{o: o, env: env, nodes: env.Cluster.Nodes(), waiting: map[string]int64{}, seen: map[uint64]bool{}}
	if err := writeSettings(env.Dir, o); err != nil {
		return nil, err
	}
	i.conns.Nodes = i.nodes
	var err error
	if i.admin, err = i.conns.Connect(0, "schedule-admin"); err != nil {
		return nil, err
	}
	i.js, _ = jetstream.New(i.admin)
	level, since, feature := APILevelAt, SinceAt, "message schedules (ADR-51, @at)"
	if o.Repeating > 0 {
		level, since, feature = APILevelEvery, SinceEvery, "repeating message schedules (ADR-51, @every)"
	}
	if err := client.RequireAPILevel(ctx, i.js, level, feature, since); err != nil {
		i.Close()
		return nil, err
	}
	for _, cfg := range o.streams() {
		if _, err := client.CreateStream(ctx, i.js, cfg, 0); err != nil {
			i.Close()
			return nil, err
		}
	}
	return i, nil
}

// streams are the cell's stream configs: the schedules (and, in a limits
// cell, the targets), and in a work-queue cell the stream sourcing the
// targets from the work queue.
func (o Options) streams() []jetstream.StreamConfig {
	sched := jetstream.StreamConfig{Name: o.Stream, Subjects: []string{o.Stream + ".>"}, Replicas: o.Replicas,
		Storage: jetstream.FileStorage, AllowMsgSchedules: true, AllowRollup: true}
	if o.Retention != RetentionWorkQueue {
		return []jetstream.StreamConfig{sched}
	}
	sched.Retention = jetstream.WorkQueuePolicy
	targets := jetstream.StreamConfig{Name: o.Targets(), Replicas: o.Replicas, Storage: jetstream.FileStorage,
		Sources: []*jetstream.StreamSource{{Name: o.Stream, FilterSubject: o.TargetSubject(">")}}}
	return []jetstream.StreamConfig{sched, targets}
}

// Run starts the live consumer of the targets, creates the repeating
// schedules, and drives the one-shot schedulers (clients 0 to C-1) until
// ctx is done. The consumer and the repeating schedules go on into
// Finish.
func (i *instance) Run(ctx context.Context, script *nemesis.Script) error {
	i.script = script
	wctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	i.watchStop, i.watchDone = stop, make(chan struct{})
	nc, err := i.conns.Connect(len(i.nodes)-1, "schedule-consumer")
	if err != nil {
		stop()
		close(i.watchDone)
		return err
	}
	go func() {
		defer close(i.watchDone)
		i.consume(wctx, nc)
	}()
	ns := i.o.Clients * len(i.nodes)
	for k := range i.o.Repeating {
		id := fmt.Sprintf("r%d", k)
		i.repeats = append(i.repeats, i.o.ScheduleSubject(id))
		i.create(ctx, ns+k, i.js, i.admin, Schedule{Subject: i.o.ScheduleSubject(id), Target: i.o.TargetSubject(id), Kind: KindEvery,
			Every: i.o.Every, Body: id})
	}
	// Every scheduler connects before any starts: a connect that fails
	// leaves no scheduler running past Run.
	scheds := make([]*nats.Conn, ns)
	for c := range ns {
		cn, err := i.conns.Connect(c, fmt.Sprintf("schedule-scheduler-%d", c))
		if err != nil {
			return err
		}
		scheds[c] = cn
	}
	var wg sync.WaitGroup
	for c, cn := range scheds {
		js, _ := jetstream.New(cn)
		wg.Go(func() {
			for n := 0; ctx.Err() == nil; n++ {
				id := fmt.Sprintf("o%d-%d", c, n)
				// Due on a whole second at least Ahead away: @at
				// takes RFC 3339 to the second.
				at := time.Now().Add(i.o.Ahead).Truncate(time.Second).Add(time.Second)
				i.create(ctx, c, js, cn, Schedule{Subject: i.o.ScheduleSubject(id), Target: i.o.TargetSubject(id), Kind: KindAt,
					At: at.UnixNano(), Body: id})
				select {
				case <-ctx.Done():
				case <-time.After(i.o.Pause):
				}
			}
		})
	}
	wg.Wait()
	return nil
}

// createTimeout bounds one create.
const createTimeout = 2 * time.Second

// create publishes schedule s once and records it. An acknowledged
// one-shot is awaited by the finish until it is seen fired.
func (i *instance) create(ctx context.Context, clientID int, js jetstream.JetStream, nc *nats.Conn, s Schedule) {
	h := i.env.History
	opts := []jetstream.PublishOpt{jetstream.WithScheduleTarget(s.Target)}
	if s.Kind == KindAt {
		opts = append(opts, jetstream.WithScheduleAt(time.Unix(0, s.At)))
	} else {
		opts = append(opts, jetstream.WithScheduleEvery(s.Every))
	}
	if s.Kind == KindAt {
		i.script.Due(time.Unix(0, s.At), "one-shot "+s.Subject)
	} else {
		i.script.Due(time.Now().Add(s.Every), "repeating "+s.Subject)
	}
	op := history.Op{Type: OpCreate, Client: clientID, Node: nc.ConnectedServerName(), Key: s.Subject}
	op.Invoke, s.WallInvoke = h.Now(), time.Now().UnixNano()
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), createTimeout)
	ack, err := js.Publish(actx, s.Subject, []byte(s.Body), opts...)
	cancel()
	s.WallComplete, op.Complete = time.Now().UnixNano(), max(op.Invoke, h.Now())
	if err != nil {
		c := client.Classify(err)
		op.Outcome, op.Err, op.ErrCode, op.ErrMsg = c.Outcome(true), c.Kind, c.Code, c.Msg
	} else {
		op.Outcome, s.Seq = history.OK, ack.Sequence
		if s.Kind == KindAt {
			i.mu.Lock()
			i.waiting[s.Subject] = s.At
			i.lastDue = max(i.lastDue, s.At)
			i.mu.Unlock()
		}
	}
	op.Data, _ = json.Marshal(s)
	h.Add(op)
	if err != nil {
		time.Sleep(20 * time.Millisecond) // no busy loop on a refusing cluster
	}
}

// Close stops the live consumer and closes every connection.
func (i *instance) Close() {
	if i.watchStop != nil {
		i.watchStop()
		<-i.watchDone
	}
	i.conns.Close()
}
