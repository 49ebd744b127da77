// Package nemesis injects faults into a JetStream cluster, checks that each
// fault really took effect, and undoes it.
//
// A Fault is one kind of fault (kill, partition-one, ...). Injecting it gives
// an Active fault: which nodes it hit, what the check of its effect saw, and
// how to heal it (healing checks its own effect too). A Schedule picks faults
// with a seeded generator, holds each for an interval, heals it, and records
// one history op per window. WaitRecovered waits, with a bound, until the
// cluster is whole again after the final heal.
//
// The faults, what they need from the runtime, and what is checked:
//
//	fault             needs            target               injected when                              healed when
//	partition-one     partition        a random node        no /routez lists a peer across the cut      every node routes to all peers
//	partition-leader  partition        stream leader (meta  same                                        same
//	                                   leader if no stream)
//	partition-halves  partition        random minority      same                                        same
//	kill              kill             a random node        State not running and monitor port refuses  running, routes to all peers
//	restart           stop (graceful)  a random node        same                                        same
//	pause             pause            a random node        State paused and a monitor request times    same
//	                                                        out
//	wipe              kill, wipe       a random node        down (as kill) and Wipe returned            restarted node first shows the stream
//	                                                                                                    with fewer messages than before the
//	                                                                                                    kill, then /healthz OK, full routes
//	catchup           kill, wipe       a random node (the   down (as kill), Wipe returned, and the      running with routes to all peers (the
//	                  (memory-limit)   catch-up workload's  limit set when Rebuild has one             catch-up itself is the workload's to
//	                                   target)                                                         watch)
//	power-loss        power-loss       a random node        State not running, monitor refuses, and    running, routes to all peers
//	                                                        the store rolled back (bytes discarded
//	                                                        per node; its store saw writes)
//	power-loss-       power-loss       a random majority    same                                        same, every target
//	majority
//	power-loss-all    power-loss       every node           same                                        same, every node
//	kill-majority     kill             random majority      all SIGKILLed at once (calls released       all started at once; each running
//	                                                        together), each down as kill                with routes to all peers
//	kill-all          kill             every node           same                                        same
//	restart-all       stop             every node           same, graceful stops                        same
//	pause-kill        pause, kill      a random node        paused (as pause), then SIGKILLed and down  as kill
//	bitflip[=C]       stop,            random minority      stopped; in the newest file of class C      started, routes to all peers
//	                  store-files                           (block: the stream's msgs/*.blk, wal: its
//	                                                        raft group's msgs/*.blk, snapshot: its
//	                                                        snapshots/snap.*) 4 random bits flipped
//	                                                        and read back; file, offsets, bytes kept
//	truncate[=C]      stop,            random minority      same, the file cut at a random offset and   same
//	                  store-files                           its new size read back
//	member-replace    stop, wipe,      a random node        stopped, wiped, started as a new server     the new server is a current replica
//	                  rename, Env.JS                        (n2-r1), STREAM.PEER.REMOVE and SERVER.     and its own /healthz is OK
//	                                                        REMOVE of the old: the old name is in
//	                                                        neither the meta nor the stream peers
//	                                                        (/jsz of their leaders), the new one in both
//	stepdown          Env.JS, Stream   stream leader        stream info names another leader           the stream has a leader
//	latency[=D]       latency          a random node        its route RTTs reach D                      RTTs below D/2
//	loss[=P%]         loss             a random node        the nftables drop rule's counter has        rules gone (counters), full routes
//	                                                        dropped packets to or from peers
//	bandwidth[=R]     bandwidth        a random node        a tc tbf at rate R is at its interface's    tbf gone (qdisc stats), full routes
//	                                                        root and its packet count grows
//
// A Schedule runs one fault at a time: a list of several is a mix the seed
// picks from. A Script runs faults a workload injects at moments of its own
// (the catch-up workload's Rebuild), recorded as windows the same way. Every check reads the ground truth the server exposes (monitoring
// endpoints, stream info) or the runtime's own State, within
// Env.VerifyWithin; a check that could not confirm an effect says so
// (Check.OK false with what it saw), never silently.
package nemesis

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/watch"
)

// Fault is one kind of fault.
type Fault interface {
	// Name is the name --nemesis accepts (with its parameter, if any).
	Name() string
	// Needs lists the runtime controls the fault uses; see Refuse.
	Needs() []cluster.Capability
	// Inject applies the fault and checks its effect. A nil error means the
	// fault was applied (the Active's Check says whether its effect was
	// seen). An error with a non-nil Active means it was partly applied and
	// must still be healed; an error with a nil Active means nothing changed.
	Inject(ctx context.Context, env *Env) (Active, error)
}

// Active is a fault in effect.
type Active interface {
	// Targets are the names of the nodes the fault hit.
	Targets() []string
	// Check is what verifying the injected effect saw.
	Check() Check
	// Heal undoes the fault and checks that it is undone (a node back with
	// its routes, a partition's routes restored).
	Heal(ctx context.Context) Check
}

// Check is the outcome of verifying an effect.
type Check struct {
	OK     bool   `json:"ok"`
	Detail string `json:"detail,omitempty"` // what was seen, in one line

	joined bool // the parts of a combination, each with its own verdict in Detail
}

// Env is what faults act on.
type Env struct {
	Cluster cluster.Cluster
	// JS is used for stream info and leader step-down. It may be nil: leaders
	// are then read from /jsz, and stepdown cannot run.
	JS jetstream.JetStream
	// Stream is the workload's stream: partition-leader isolates its leader,
	// stepdown moves it, wipe watches its catch-up, WaitRecovered waits for
	// its replicas. Empty means none (partition-leader then targets the meta
	// leader).
	Stream string
	// Rand makes every random choice. Schedule.Run sets it per window from
	// the seed; a nil Rand is a fixed seed of 0.
	Rand *rand.Rand
	// Logf, if set, gets one line per step.
	Logf func(format string, args ...any)

	// VerifyWithin bounds each check that waits for an effect (routes cut,
	// node down, leader moved, node back). Default 20s.
	VerifyWithin time.Duration
	// ProbeTimeout bounds one monitoring request; a paused node is one whose
	// monitor does not answer within it. Default 2s.
	ProbeTimeout time.Duration

	// Watch, when set, follows the cluster's events: roles such as
	// old-leader and catching-up are read from it, and triggered faults
	// wait for it (Schedule). Nil: no triggers or such roles.
	Watch *watch.Watcher

	// memberOps, when set, replaces the JetStream cluster API that
	// member-replace calls (tests).
	memberOps memberAPI

	// One window's: the node a role chose, the event that fired the
	// window, and when the fault took effect (markEffect).
	pinned string
	event  *watch.Event
	effect *effectMark
}

// markEnded records, as the fault's effect, when node i's process ended as
// the runtime saw it exit (NodeState.FinishedAt), if that was after since,
// the moment the control was called; else now. A kill takes effect when
// the process dies, which the runtime's call may report much later.
func (e *Env) markEnded(ctx context.Context, since time.Time, idx ...int) {
	if e.effect == nil || !e.effect.at.IsZero() {
		return
	}
	var first time.Time
	for _, i := range idx {
		st, err := e.Cluster.State(ctx, i)
		if err != nil || st.FinishedAt.Before(since) || st.FinishedAt.After(time.Now()) {
			first = time.Time{}
			break
		}
		if first.IsZero() || st.FinishedAt.Before(first) {
			first = st.FinishedAt
		}
	}
	e.markEffect()
	if !first.IsZero() {
		e.effect.at = first
	}
}

// effectMark is when a window's fault took effect, and the replicas' lag
// as the watcher last polled it then.
type effectMark struct {
	at  time.Time
	lag map[string]uint64
}

// markEffect records when the fault took effect: the first control call
// that changed the cluster returned (a kill, a partition's rules in place).
// A fault calls it right after that call; the window keeps the first.
func (e *Env) markEffect() {
	if e.effect == nil || !e.effect.at.IsZero() {
		return
	}
	e.effect.at = time.Now()
	if e.Watch != nil {
		e.effect.lag = e.Watch.Now().Lag
	}
}

const (
	defaultVerifyWithin = 20 * time.Second
	defaultProbeTimeout = 2 * time.Second
)

func (e *Env) verifyWithin() time.Duration {
	if e.VerifyWithin > 0 {
		return e.VerifyWithin
	}
	return defaultVerifyWithin
}

func (e *Env) probeTimeout() time.Duration {
	if e.ProbeTimeout > 0 {
		return e.ProbeTimeout
	}
	return defaultProbeTimeout
}

func (e *Env) rng() *rand.Rand {
	if e.Rand == nil {
		e.Rand = rand.New(rand.NewPCG(0, 0))
	}
	return e.Rand
}

func (e *Env) logf(format string, args ...any) {
	if e.Logf != nil {
		e.Logf(format, args...)
	}
}

// nodes re-reads the node list: URLs can change after a restart.
func (e *Env) nodes() []cluster.Node { return e.Cluster.Nodes() }

func (e *Env) name(i int) string {
	ns := e.nodes()
	if i >= 0 && i < len(ns) {
		return ns[i].Name
	}
	return cluster.NodeName(i)
}

func (e *Env) allNames() []string {
	var out []string
	for _, n := range e.nodes() {
		out = append(out, n.Name)
	}
	return out
}

func (e *Env) index(name string) int {
	for i, n := range e.nodes() {
		if n.Name == name {
			return i
		}
	}
	return -1
}

// active is the Active every fault returns.
type active struct {
	targets []string
	check   Check
	heal    func(ctx context.Context) Check
}

func (a *active) Targets() []string { return a.targets }
func (a *active) Check() Check      { return a.check }
func (a *active) Heal(ctx context.Context) Check {
	if a.heal == nil {
		return Check{OK: true, Detail: "nothing to heal"}
	}
	return a.heal(ctx)
}
