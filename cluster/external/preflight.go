package external

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/jetstream-chaos/jetstream-chaos/client"
)

// Preflight checks, before anything of the run starts, that the account
// can do what the run will do, with the run's subjects: JetStream account
// info; then for each stream, that neither it nor its probe stream
// (Stream.ProbeName) exists yet, and on the probe stream a
// create with the run's replicas, a publish, a Direct Get and an update
// (allow_direct off) when the run reads through Direct Get, a leader get,
// an ordered consumer's read, a durable pull consumer's fetch and
// acknowledgement when the run acks, a leader step-down when stepdown is
// among the faults, and the delete. The first
// step that fails is ErrRefused, naming the permission the server denied
// (or the JetStream error it answered); the probe stream is deleted again
// whatever happened. Run it after Survey.
func (r *Runtime) Preflight(ctx context.Context, stepdown bool) error {
	p := &preflight{timeout: r.o.ConnectTimeout}
	nc, err := r.connect(ctx, "chaos-preflight", r.nodes(), p.onError)
	if err != nil {
		return err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	if err := p.step(ctx, "read the JetStream account info", func(ctx context.Context) error {
		_, err := js.AccountInfo(ctx)
		return err
	}); err != nil {
		return err
	}
	for _, s := range r.o.Streams {
		if err := p.stream(ctx, js, s, stepdown); err != nil {
			return err
		}
	}
	return nil
}

// preflight runs steps and turns what the server said into one line.
type preflight struct {
	timeout time.Duration

	answered bool // JetStream has answered a step: it is enabled

	mu         sync.Mutex
	violations []string
	cancel     context.CancelFunc // the step in flight: a violation ends it at once
}

func (p *preflight) onError(_ *nats.Conn, _ *nats.Subscription, err error) {
	if !errors.Is(err, nats.ErrPermissionViolation) {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	msg := err.Error()
	if i := strings.Index(msg, "Permissions Violation"); i >= 0 {
		msg = msg[i:]
	}
	p.violations = append(p.violations, msg)
	if p.cancel != nil {
		p.cancel()
	}
}

// step runs f within the timeout and explains its failure.
func (p *preflight) step(ctx context.Context, what string, f func(context.Context) error) error {
	sctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	p.mu.Lock()
	p.violations, p.cancel = nil, cancel
	p.mu.Unlock()
	err := f(sctx)
	for p.passing(err) && sctx.Err() == nil {
		select {
		case <-sctx.Done():
		case <-time.After(100 * time.Millisecond):
			// An answer cut off by the step's end says less than the one
			// before it.
			if again := f(sctx); again == nil || sctx.Err() == nil {
				err = again
			}
		}
	}
	p.mu.Lock()
	violations := p.violations
	p.cancel = nil
	p.mu.Unlock()
	switch {
	case err == nil:
		p.answered = true
		return nil
	case errors.Is(err, ErrRefused):
		return err
	case len(violations) > 0:
		return refuse("the account lacks a permission the run needs, to %s: %s", what, strings.Join(violations, "; "))
	case p.answered && errors.Is(err, nats.ErrNoResponders):
		return refuse("cannot %s: no server answered for %s, although JetStream answered the steps before (%v)", what, p.timeout, err)
	case errors.Is(err, jetstream.ErrJetStreamNotEnabled), errors.Is(err, jetstream.ErrJetStreamNotEnabledForAccount), errors.Is(err, nats.ErrNoResponders):
		return refuse("cannot %s: JetStream is not enabled for this account (%v)", what, err)
	case client.PlacementRefused(err):
		return refuse("cannot %s: the server answered %v for %s: a server is down, or the cluster has fewer servers than the replicas", what, err, p.timeout)
	case client.Classify(err).Cause == client.Refused:
		return refuse("cannot %s: the server answered %v", what, err)
	}
	return fmt.Errorf("cannot %s: %v", what, err)
}

// passing says whether err may pass if the step is asked again.
//   - Once JetStream has answered, no responders means a subject without
//     its subscriber for a moment (a stream leader or consumer just moved,
//     seen right after an update on a just-started cluster), not JetStream
//     off.
//   - A placement refusal (10005, "no suitable peers for placement, peer
//     offline") comes from a meta leader that has not yet received every
//     peer's statistics (nats-server server.go, nodeInfo): seen when the
//     run started right after `chaos cluster up --detach`. A peer that is
//     really down keeps it for the whole step, which then refuses.
func (p *preflight) passing(err error) bool {
	if p.answered && errors.Is(err, nats.ErrNoResponders) {
		return true
	}
	return client.PlacementRefused(err)
}

// stream probes one of the run's streams under its probe name, with its
// subjects.
func (p *preflight) stream(ctx context.Context, js jetstream.JetStream, s Stream, stepdown bool) (err error) {
	for _, name := range []string{s.Name, s.ProbeName()} {
		if err := p.step(ctx, "look up stream "+name, func(ctx context.Context) error {
			exists, err := streamExistsErr(ctx, js, name)
			if err == nil && exists {
				return refuse("stream %s already exists and is not this run's: the run never touches streams it did not create (pick another --name-prefix)", name)
			}
			return err
		}); err != nil {
			return err
		}
	}
	probe := s.ProbeName()
	cfg := jetstream.StreamConfig{Name: probe, Subjects: []string{s.Filter}, Replicas: s.Replicas,
		Storage: jetstream.FileStorage, AllowDirect: s.DirectGet, MaxMsgs: 10,
		AllowAtomicPublish: s.AtomicPublish, AllowMsgCounter: s.Counters}
	var st jetstream.Stream
	if err := p.step(ctx, fmt.Sprintf("create stream %s (R%d%s)", probe, s.Replicas, s.features()), func(ctx context.Context) error {
		st, err = js.CreateStream(ctx, cfg)
		if err == nil {
			err = keptFeatures(s, st.CachedInfo().Config)
		}
		return err
	}); err != nil {
		return err
	}
	defer func() {
		derr := p.step(context.WithoutCancel(ctx), "delete stream "+probe, func(ctx context.Context) error {
			return deleteStream(ctx, js, probe, p.timeout)
		})
		if derr != nil && err == nil {
			err = fmt.Errorf("%w; the probe stream %s is left: delete it by hand (nats stream rm %s)", derr, probe, probe)
		}
	}()
	steps := []struct {
		what string
		do   func(context.Context) error
	}{
		{"publish to " + s.Subject, func(ctx context.Context) error {
			_, err := js.PublishMsg(ctx, probeMsg(s))
			return err
		}},
		{"publish an atomic batch to " + s.Subject, func(ctx context.Context) error {
			if !s.AtomicPublish {
				return nil
			}
			return publishBatch(ctx, js, s.Subject)
		}},
		{"read " + s.Subject + " with Direct Get", func(ctx context.Context) error {
			if !s.DirectGet {
				return nil
			}
			_, err := st.GetLastMsgForSubject(ctx, s.Subject)
			return err
		}},
		{"update stream " + probe, func(ctx context.Context) error {
			if !s.DirectGet {
				return nil
			}
			c := cfg
			c.AllowDirect = false
			st, err = js.UpdateStream(ctx, c)
			return err
		}},
		{"read " + s.Subject + " from the stream leader", func(ctx context.Context) error {
			_, err := st.GetLastMsgForSubject(ctx, s.Subject)
			return err
		}},
		{"read stream " + probe + " with an ordered consumer", func(ctx context.Context) error {
			return readOrdered(ctx, js, probe, p.timeout)
		}},
	}
	if s.Acks {
		steps = append(steps, struct {
			what string
			do   func(context.Context) error
		}{"read stream " + probe + " with a durable pull consumer and acknowledge", func(ctx context.Context) error {
			return fetchAndAck(ctx, js, probe, p.timeout)
		}})
	}
	if stepdown {
		steps = append(steps, struct {
			what string
			do   func(context.Context) error
		}{"step down the leader of stream " + probe, func(ctx context.Context) error {
			return stepDown(ctx, js, probe)
		}})
	}
	for _, st := range steps {
		if err := p.step(ctx, st.what, st.do); err != nil {
			return err
		}
	}
	return nil
}

// fetchAndAck creates a durable pull consumer, fetches one message and
// acknowledges it with a confirmed ack, as queue's workers do; the consumer
// goes with the probe stream.
func fetchAndAck(ctx context.Context, js jetstream.JetStream, stream string, wait time.Duration) error {
	cons, err := js.CreateConsumer(ctx, stream, jetstream.ConsumerConfig{Durable: "chaos_preflight", AckPolicy: jetstream.AckExplicitPolicy})
	if err != nil {
		return err
	}
	msgs, err := cons.Fetch(1, jetstream.FetchMaxWait(wait))
	if err != nil {
		return err
	}
	n := 0
	for m := range msgs.Messages() {
		n++
		if err := m.DoubleAck(ctx); err != nil {
			return err
		}
	}
	if err := msgs.Error(); err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("the consumer delivered nothing within %s, so acknowledging could not be tried", wait)
	}
	return nil
}

func streamExistsErr(ctx context.Context, js jetstream.JetStream, name string) (bool, error) {
	_, err := js.Stream(ctx, name)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return false, nil
	}
	return err == nil, err
}

// stepDown asks for a leader step-down; any JetStream answer (a refusal
// included) shows the permission is there.
func stepDown(ctx context.Context, js jetstream.JetStream, stream string) error {
	msg, err := js.Conn().RequestWithContext(ctx, "$JS.API.STREAM.LEADER.STEPDOWN."+stream, nil)
	if err != nil {
		return err
	}
	var resp struct {
		Error *struct {
			Description string `json:"description"`
		} `json:"error"`
	}
	if err := json.Unmarshal(msg.Data, &resp); err != nil {
		return fmt.Errorf("step-down answer: %v", err)
	}
	return nil
}

// readOrdered reads the probe's message with an ordered consumer, a fresh
// one for each of three tries of a third of within each: on a cluster
// just started, one ordered consumer has been seen to deliver nothing for
// the whole 30 s while the stream's leader answered gets (CI, twice in
// eight runs of TestIntegrationImageRunsExternal); the error says how
// many tried.
func readOrdered(ctx context.Context, js jetstream.JetStream, stream string, within time.Duration) error {
	const tries = 3
	var err error
	for i := 0; i < tries && ctx.Err() == nil; i++ {
		tctx, cancel := context.WithTimeout(ctx, within/tries)
		var cons jetstream.Consumer
		if cons, err = js.OrderedConsumer(tctx, stream, jetstream.OrderedConsumerConfig{}); err == nil {
			_, err = cons.Next(jetstream.FetchContext(tctx))
		}
		cancel()
		if err == nil {
			return nil
		}
	}
	if err == nil {
		err = ctx.Err() // the step's time was up before a try
	}
	return fmt.Errorf("%d ordered consumers, each given %s, delivered nothing: %w", tries, within/tries, err)
}
