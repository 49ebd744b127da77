package kvupdate

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	jsclient "github.com/jetstream-chaos/jetstream-chaos/client" // kv-update has its own type client
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// ObservedFile holds what the ordered consumers saw during the run.
const ObservedFile = "observed.jsonl"

// orderedObservers is the number of ordered consumers that watch the
// stream during the run, each through a connection to another node, so
// that a fault on one node leaves the other watching. Every node also has
// a subscription to the republished messages: the leader's own subscriber
// gets them without a route, so a leader whose routes are not up yet
// (just restarted) is still heard; with two, a v2.15.3 run missed 3
// sequences.
const orderedObservers = 2

// ObservedHead is the first line of observed.jsonl.
type ObservedHead struct {
	// LastSeq is the stream's last sequence after the heal: the observers
	// were drained up to it.
	LastSeq uint64 `json:"last_seq"`
	// Count is the entries that follow; Missing the sequences up to
	// LastSeq that no observer saw (deleted before they got there, or lost).
	Count   int `json:"count"`
	Missing int `json:"missing"`
	// Conflicts are messages announced at a sequence where another one had
	// been seen (the entries keep the first).
	Conflicts []history.Entry `json:"conflicts,omitempty"`
	// Observers says what each consumer saw.
	Observers []ObserverStat `json:"observers"`
}

// ObserverStat is one consumer's share.
type ObserverStat struct {
	Via      string `json:"via"`
	Received int    `json:"received"` // messages delivered to it, repeats included
	Reached  bool   `json:"reached"`  // it saw LastSeq
	Error    string `json:"error,omitempty"`
}

// runObserver is an observer with its own connection.
type runObserver struct {
	nc    *nats.Conn
	via   string
	ready chan struct{} // closed once obs or err is set
	obs   *observer
	err   error
}

func doneObserver(nc *nats.Conn, via string, obs *observer, err error) *runObserver {
	ro := &runObserver{nc: nc, via: via, ready: make(chan struct{}), obs: obs, err: err}
	close(ro.ready)
	return ro
}

// startRunObservers starts, through each node, a subscription to the
// republished messages, and through the first two an ordered consumer; one
// that cannot start is recorded with its error (the others still watch).
func (w *Workload) startRunObservers(ctx context.Context) []*runObserver {
	var out []*runObserver
	w.sink = newSink()
	for node := range w.nodes {
		via := w.nodes[node].Name
		nc, err := jsclient.Connect(w.nodes, jsclient.Order(node, len(w.nodes)), fmt.Sprintf("chaos-observer%d", node))
		if err != nil {
			out = append(out, doneObserver(nil, via+" republish", nil, err))
			continue
		}
		if node < orderedObservers {
			out = append(out, w.startOrdered(ctx, nc, via+" ordered consumer"))
		}
		rep, err := startRepublishObserver(nc, w.opts.Bucket, via+" republish", w.sink)
		out = append(out, doneObserver(nc, via+" republish", rep, err))
	}
	return out
}

// startOrdered creates an ordered consumer in the background, retrying
// transient failures until the run ends: the consumer create can go
// unanswered while a fault is on (seen on v2.11.8 for a whole run), and
// the clients must not wait for it.
func (w *Workload) startOrdered(ctx context.Context, nc *nats.Conn, via string) *runObserver {
	ro := &runObserver{via: via, ready: make(chan struct{})}
	go func() {
		defer close(ro.ready)
		js, err := jetstream.New(nc)
		if err != nil {
			ro.err = err
			return
		}
		ro.err = jsclient.RetryTransient(ctx, time.Until(deadlineOr(ctx, time.Hour)), func(tctx context.Context) (err error) {
			ro.obs, err = startObserver(tctx, js, w.opts.Bucket, via, w.sink)
			return err
		})
	}()
	return ro
}

// deadlineOr is ctx's deadline, or d from now.
func deadlineOr(ctx context.Context, d time.Duration) time.Time {
	if t, ok := ctx.Deadline(); ok {
		return t
	}
	return time.Now().Add(d)
}

// DrainObservers waits (bounded) for the run's observers to reach lastSeq,
// stops them and merges what they saw.
func (w *Workload) DrainObservers(ctx context.Context, lastSeq uint64, bound time.Duration) ([]history.Entry, ObservedHead) {
	head := ObservedHead{LastSeq: lastSeq}
	deadline := time.Now().Add(bound)
	for _, ro := range w.observed {
		st := ObserverStat{Via: ro.via}
		select {
		case <-ro.ready:
		case <-time.After(time.Until(deadline)):
			st.Error = "not started by the end of the run"
			head.Observers = append(head.Observers, st)
			continue
		}
		if ro.obs != nil {
			ro.obs.wait(ctx, lastSeq, deadline)
			st.Received, st.Reached = ro.obs.stop(lastSeq)
		}
		if ro.err != nil {
			st.Error = ro.err.Error()
		}
		if ro.nc != nil {
			ro.nc.Close()
		}
		head.Observers = append(head.Observers, st)
	}
	w.observed = nil
	var out []history.Entry
	if w.sink != nil {
		out = w.sink.sorted(lastSeq)
		head.Conflicts = w.sink.conflicts
	}
	w.sink = nil
	head.Count = len(out)
	head.Missing = int(lastSeq) - len(out)
	return out, head
}

// WriteObserved saves the observed stream.
func WriteObserved(path string, head ObservedHead, entries []history.Entry) error {
	return history.WriteEntries(path, head, entries)
}

// ReadObserved loads observed.jsonl. A file cut short (a run killed while
// writing) is an error: its completeness cannot be told. So is an entry
// out of order (observedOrder). Errors name path:line.
func ReadObserved(path string) ([]history.Entry, ObservedHead, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, ObservedHead{}, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	var head ObservedHead
	if !sc.Scan() {
		return nil, head, fmt.Errorf("%s: empty", path)
	}
	if err := json.Unmarshal(sc.Bytes(), &head); err != nil {
		return nil, head, fmt.Errorf("%s:1: %w", path, err)
	}
	if head.Count < 0 {
		return nil, head, fmt.Errorf("%s:1: negative count %d", path, head.Count)
	}
	// Made once at its size: grown by appending, a long run's entries
	// would be copied again and again.
	out := make([]history.Entry, 0, min(head.Count, 1<<24))
	var order observedOrder
	for sc.Scan() {
		e, err := history.DecodeEntry(sc.Bytes())
		if err == nil {
			err = order.next(e)
		}
		if err != nil {
			return nil, head, &history.LineError{File: path, Line: len(out) + 2, Err: err}
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return nil, head, err
	}
	if len(out) != head.Count {
		return nil, head, fmt.Errorf("%s: %d entries, the head says %d", path, len(out), head.Count)
	}
	return out, head, nil
}

// observedOrder checks observed.jsonl's entries as WriteObserved writes
// them: each valid, in increasing sequence order (DrainObservers sorts
// them, and the read-back check looks them up by binary search). A file
// out of order was not written by a run, so what its head says of it
// (how many sequences were missed) cannot be trusted either: it is
// malformed, not sorted here.
type observedOrder struct{ last uint64 }

func (o *observedOrder) next(e history.Entry) error {
	if err := e.Validate(); err != nil {
		return err
	}
	switch {
	case e.Seq == o.last:
		return fmt.Errorf("sequence %d appears twice", e.Seq)
	case e.Seq < o.last:
		return fmt.Errorf("sequence %d after %d: the observers' entries are written in increasing sequence order", e.Seq, o.last)
	}
	o.last = e.Seq
	return nil
}
