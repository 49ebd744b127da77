// Package replicaread reads one stream's copy on every server after the
// heal, for replica-divergence (checker/replicas): each server's /jsz
// state and every message of its own store, through an R1 consumer placed
// on it, read again while the copies differ, and saved in the cell.
package replicaread

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/checker/replicas"
	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// File lists what every replica held after the heal; each replica's
// messages are in replica-<node>.jsonl beside it.
const File = "replicas.json"

func replicaFile(node string) string { return "replica-" + node + ".jsonl" }

// Reader reads one stream's copy on every server of a cluster.
type Reader struct {
	JS     jetstream.JetStream
	Nodes  []cluster.Node
	Stream string
	// Entry makes a message the entry replicas compare: for a KV bucket
	// its key and value, for another stream its subject and what the
	// workload makes of its body and headers.
	Entry func(m jetstream.Msg, seq uint64) history.Entry
}

// placeBound bounds the attempts to get a consumer onto one server. The
// server places an R1 consumer on a random active peer of the stream, but
// puts first the peers the meta leader counts as caught up
// (nats-server jetstream_cluster.go, createGroupForConsumer,
// IsFollowerCaughtUp). A server just restarted is skipped until the meta
// layer catches it up, however many tries are made in the meantime (a CI
// run saw 20 quick tries all land elsewhere), so the bound is a time, and
// tries are spaced. Once caught up, each try lands on a given replica with
// probability 1/R: the misses in 15 s are negligible.
const placeBound = 15 * time.Second

// placePause spaces the placement tries.
const placePause = 150 * time.Millisecond

// readReplicaBound bounds reading one replica.
const readReplicaBound = 60 * time.Second

// Read reads the stream from every server's own store: an R1
// ephemeral consumer runs on the server that hosts it and reads that
// server's copy, so each replica is read through a consumer placed on it
// (verified with the consumer's info, recreated until it lands there).
// Each server's /jsz state is recorded beside it.
func (r Reader) Read(ctx context.Context) []replicas.Replica {
	peers, perr := r.streamPeers(ctx)
	out := make([]replicas.Replica, 0, len(r.Nodes))
	for n := range r.Nodes {
		rp := replicas.Replica{Node: r.Nodes[n].Name}
		st, err := r.jszState(ctx, n)
		if err != nil {
			rp.Error = "jsz: " + err.Error()
		}
		rp.State = st
		current, isPeer := peers[rp.Node]
		if isPeer && perr == nil {
			rp.CalledCurrent = &current
		}
		switch {
		case st == nil && err == nil && perr == nil && !isPeer:
			rp.NotReplica = true // a stream of fewer replicas than servers
		case st == nil && err == nil:
			rp.Error = "the server reports no copy of " + r.Stream + " although it is one of its peers"
			if perr != nil {
				rp.Error = "the server reports no copy of " + r.Stream + ", and its peers are unknown: " + perr.Error()
			}
		default:
			if rerr := r.readReplica(ctx, &rp); rerr != nil {
				rp.Error = joinErr(rp.Error, rerr.Error())
			}
		}
		out = append(out, rp)
	}
	return out
}

// streamPeers are the servers the stream info (its leader's answer) names
// as its leader and replicas, each with whether it called it current (the
// leader always: it is current with itself).
func (r Reader) streamPeers(ctx context.Context) (map[string]bool, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	s, err := r.JS.Stream(ctx, r.Stream)
	if err != nil {
		return nil, err
	}
	ci := s.CachedInfo().Cluster
	if ci == nil {
		return map[string]bool{}, nil // one server, not clustered
	}
	peers := map[string]bool{}
	if ci.Leader != "" {
		peers[ci.Leader] = true
	}
	for _, p := range ci.Replicas {
		peers[p.Name] = p.Current
	}
	return peers, nil
}

// legacyNoCopy says whether a replica stored before NotReplica existed is
// a server that held no copy ("the server reports no copy of KV_chaos").
// Those cells did not record the stream's peers, so such a server is read
// as not a replica: a replica that lost its copy would have kept the run
// from recovering before the replicas were read.
func legacyNoCopy(rp replicas.Replica) bool {
	const prefix = "the server reports no copy of "
	return rp.State == nil && strings.HasPrefix(rp.Error, prefix) && !strings.Contains(rp.Error[len(prefix):], " ")
}

func joinErr(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// readReplica reads rp.Node's copy into rp.Entries.
func (r Reader) readReplica(ctx context.Context, rp *replicas.Replica) error {
	ctx, cancel := context.WithTimeout(ctx, readReplicaBound)
	defer cancel()
	cons, err := r.consumerOn(ctx, rp.Node)
	if err != nil {
		return err
	}
	defer func() {
		dctx, dcancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		_ = r.JS.DeleteConsumer(dctx, r.Stream, cons.CachedInfo().Name)
		dcancel()
	}()
	if rp.State != nil && rp.State.Messages == 0 {
		rp.Complete = true
		return nil
	}
	idle := 0   // empty answers in a row
	noResp := 0 // pulls nobody answered yet
	for ctx.Err() == nil {
		// What the server has now: Fetch would wait out its max wait for
		// a full batch at the end of the stream.
		batch, err := cons.FetchNoWait(1000)
		if errors.Is(err, nats.ErrNoResponders) && noResp < 100 {
			// A consumer just placed can take a moment to answer pulls
			// (seen on v2.15.3 right after a heal, and for over 2 s on a
			// loaded machine): up to 10 s.
			noResp++
			time.Sleep(100 * time.Millisecond)
			continue
		}
		if err != nil {
			return fmt.Errorf("fetch from %s: %w", rp.Node, err)
		}
		got := 0
		for m := range batch.Messages() {
			got++
			md, err := m.Metadata()
			if err != nil {
				continue
			}
			rp.Entries = append(rp.Entries, r.Entry(m, md.Sequence.Stream))
			if md.NumPending == 0 {
				rp.Complete = true
			}
		}
		if rp.Complete {
			return nil
		}
		err = batch.Error()
		if errors.Is(err, nats.ErrNoResponders) && got == 0 && noResp < 100 {
			// The same, reported by the pull itself rather than by
			// FetchNoWait (seen on the local runtime under load).
			noResp++
			time.Sleep(100 * time.Millisecond)
			continue
		}
		if err != nil && !errors.Is(err, nats.ErrTimeout) && !errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("fetch from %s: %w", rp.Node, err)
		}
		if got == 0 {
			if idle++; idle >= 20 {
				return fmt.Errorf("%s stopped delivering after %d messages with more pending", rp.Node, len(rp.Entries))
			}
			time.Sleep(100 * time.Millisecond)
			continue
		}
		idle = 0
	}
	return fmt.Errorf("reading %s: %w after %d messages", rp.Node, ctx.Err(), len(rp.Entries))
}

// consumerOn creates R1 consumers until one is hosted by node.
func (r Reader) consumerOn(ctx context.Context, node string) (jetstream.Consumer, error) {
	cfg := jetstream.ConsumerConfig{DeliverPolicy: jetstream.DeliverAllPolicy, AckPolicy: jetstream.AckNonePolicy,
		MemoryStorage: true, Replicas: 1, InactiveThreshold: time.Minute}
	hosts := map[string]int{}
	var lastErr error
	tries := 0
	for start := time.Now(); time.Since(start) < placeBound && ctx.Err() == nil; tries++ {
		if tries > 0 {
			time.Sleep(placePause)
		}
		cons, err := r.JS.CreateConsumer(ctx, r.Stream, cfg)
		if err != nil {
			lastErr = err
			continue
		}
		info := cons.CachedInfo()
		if info.Cluster != nil && info.Cluster.Leader == node {
			return cons, nil
		}
		if info.Cluster == nil && len(r.Nodes) == 1 { // one server, not clustered: it is there
			return cons, nil
		}
		if info.Cluster != nil {
			hosts[info.Cluster.Leader]++
		}
		_ = r.JS.DeleteConsumer(ctx, r.Stream, info.Name)
	}
	why := fmt.Sprintf("no consumer landed on %s in %d tries over %s (tries per host: %v)", node, tries, placeBound, hosts)
	if len(hosts) > 0 {
		why += "; the server places consumers on the peers the meta leader counts as caught up first"
	}
	if lastErr != nil {
		why += "; last create error: " + lastErr.Error()
	}
	return nil, errors.New(why)
}

// jszState is node's own account of the stream (/jsz), nil when it
// holds no copy.
func (r Reader) jszState(ctx context.Context, n int) (*replicas.State, error) {
	s, ok, err := cluster.Monitor{Timeout: 5 * time.Second}.LocalStream(ctx, r.Nodes[n], r.Stream)
	if err != nil || !ok {
		return nil, err
	}
	return &replicas.State{Messages: s.State.Msgs, Bytes: s.State.Bytes, FirstSeq: s.State.FirstSeq,
		LastSeq: s.State.LastSeq, Deleted: s.State.NumDeleted}, nil
}

// Write saves replicas.json, one replica-<node>.jsonl each, and
// every reading's summary (replica-reads.json).
func Write(dir string, reps []replicas.Replica, reads []replicas.Reading) error {
	for _, rp := range reps {
		if err := history.WriteStream(filepath.Join(dir, replicaFile(rp.Node)), rp.Entries, rp.Complete); err != nil {
			return err
		}
	}
	if len(reads) > 0 {
		b, err := json.MarshalIndent(reads, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, ReadingsFile), append(b, '\n'), 0o644); err != nil {
			return err
		}
	}
	b, err := json.MarshalIndent(reps, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, File), append(b, '\n'), 0o644)
}

// Load reads what Write saved; os.ErrNotExist when the
// cell has no replicas.json (a run before the check, or one interrupted).
// A node name that is not a server's name, or a replica file that
// replicas.json lists and that is missing, is an error naming it.
func Load(dir string) ([]replicas.Replica, []replicas.Reading, error) {
	b, err := os.ReadFile(filepath.Join(dir, File))
	if err != nil {
		return nil, nil, err
	}
	var reps []replicas.Replica
	if err := json.Unmarshal(b, &reps); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", File, err)
	}
	seen := map[string]bool{}
	for i := range reps {
		node := reps[i].Node
		if !serverName.MatchString(node) || seen[node] {
			return nil, nil, fmt.Errorf("%s: replica %d is named %q: not a server name, or a repeated one", File, i+1, node)
		}
		seen[node] = true
		if legacyNoCopy(reps[i]) {
			reps[i].NotReplica, reps[i].Error = true, ""
		}
		path := filepath.Join(dir, replicaFile(node))
		entries, complete, err := history.ReadStream(path)
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil, fmt.Errorf("%s lists %s, but %s is missing", File, node, replicaFile(node))
		}
		if err != nil {
			return nil, nil, err
		}
		reps[i].Entries = entries
		reps[i].Complete = reps[i].Complete && complete
	}
	reads, err := readReplicaReads(dir)
	return reps, reads, err
}

// serverName is what a node's name may be: it names a file in the cell.
var serverName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

// ReadingsFile records each reading of the replicas after the heal.
const ReadingsFile = "replica-reads.json"

// readReplicaReads loads replica-reads.json; none for cells stored before
// the replicas were read more than once.
func readReplicaReads(dir string) ([]replicas.Reading, error) {
	b, err := os.ReadFile(filepath.Join(dir, ReadingsFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var reads []replicas.Reading
	if err := json.Unmarshal(b, &reads); err != nil {
		return nil, fmt.Errorf("%s: %w", ReadingsFile, err)
	}
	return reads, nil
}

// Every is the pause between readings of replicas that differ, for
// UntilAgree.
const Every = time.Second

// UntilAgree reads the replicas until a reading finds no difference, or
// the next reading would start past bound, pausing every between readings;
// differ hears of each reading that will be followed by another.
func UntilAgree(ctx context.Context, read func(context.Context) []replicas.Replica, bound, every time.Duration,
	differ func(replicas.Reading)) ([]replicas.Replica, []replicas.Reading) {
	start := time.Now()
	var reads []replicas.Reading
	for {
		reps := read(ctx)
		r := replicas.ReadingOf(reps, time.Since(start), checker.Options{})
		reads = append(reads, r)
		if !r.Differ || time.Since(start)+every > bound || ctx.Err() != nil {
			return reps, reads
		}
		differ(r)
		select {
		case <-ctx.Done():
		case <-time.After(every):
		}
	}
}

// Judge is replica-divergence on a stored cell: its replicas as the
// last reading found them, and how they got there (replicas.CheckConverged).
// A cell without replicas.json is unknown, saying why.
func Judge(dir string, opts checker.Options) checker.Result {
	start := time.Now()
	reps, reads, err := Load(dir)
	if err != nil {
		reason := "the stored replicas cannot be judged: " + err.Error()
		if errors.Is(err, os.ErrNotExist) {
			reason = "the replicas were not read (the run ended before its finish)"
		}
		return checker.Result{Name: replicas.NameDivergence, Verdict: checker.Unknown, Reason: reason, Summary: reason,
			Counts: map[string]int{}}
	}
	r := replicas.CheckConverged(reps, reads, opts)
	r.ElapsedMs = float64(time.Since(start).Microseconds()) / 1000
	return r
}

// Save reads the replicas with rd, again every Every while they differ up
// to bound, and writes them and every reading into dir: a replica that
// lacks the newest messages for a moment after the heal is late, not
// diverged (seen on a 2.10 release: n1 lacked only the last acknowledged
// message 2 s after its ack). logf hears of each reading that differs,
// each replica that could not be read, and what was read.
func Save(ctx context.Context, rd Reader, dir string, bound time.Duration, logf func(format string, args ...any)) error {
	start := time.Now()
	reps, reads := UntilAgree(ctx, rd.Read, bound, Every, func(r replicas.Reading) {
		logf("replicas differ (%s); reading them again", r.Summary)
	})
	n := 0
	for _, rp := range reps {
		n += len(rp.Entries)
		if rp.Error != "" {
			logf("replica %s: %s", rp.Node, rp.Error)
		}
	}
	logf("read %d replicas (%d messages) %d time(s) in %s", len(reps), n, len(reads), time.Since(start).Round(time.Millisecond))
	if err := Write(dir, reps, reads); err != nil {
		return fmt.Errorf("write replicas: %w", err)
	}
	return nil
}

// States is every server's own account of the stream (/jsz), without
// reading its messages: for a stream no consumer can read one server's
// copy of (a work-queue or interest stream's consumers must have its
// replicas, error 10134). A server that holds no copy has a nil State.
func (r Reader) States(ctx context.Context) []replicas.Replica {
	out := make([]replicas.Replica, len(r.Nodes))
	for n, node := range r.Nodes {
		out[n].Node = node.Name
		st, err := r.jszState(ctx, n)
		out[n].State = st
		if err != nil {
			out[n].Error = err.Error()
		}
	}
	return out
}
