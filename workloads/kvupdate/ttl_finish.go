package kvupdate

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/jetstream-chaos/jetstream-chaos/checker/replicas"
	"github.com/jetstream-chaos/jetstream-chaos/client/replicaread"
	"github.com/jetstream-chaos/jetstream-chaos/history"
	"github.com/jetstream-chaos/jetstream-chaos/internal/atomicfile"
)

// TTLFile is what the finish of a cell with TTL keys found (a TTLFinal).
const TTLFile = "ttl.json"

// TTLFinal is the TTL bucket after every TTL in flight had passed:
// Settled is when that was (Unix ns: the last create that may be stored,
// plus the key TTL, the marker TTL and the slack); States are every
// server's /jsz state of its stream then, read again while they differ or
// hold anything; Observed says the observer read the stream to its last
// sequence (Detail: why not). An observer short of it that finds the
// bucket emptied has seen all there was: Missing names the rest.
type TTLFinal struct {
	Settled  int64              `json:"settled"`
	States   []replicas.Replica `json:"states"`
	LastSeq  uint64             `json:"last_seq"`
	Observed bool               `json:"observed"`
	Detail   string             `json:"detail,omitempty"`
	// Missing are the sequences up to LastSeq the observer never saw
	// (gone before it got there, or lost to a fault): an expiry whose
	// marker could be one of them is not judged.
	Missing []uint64 `json:"missing,omitempty"`
	// Held is, when a server still held messages once the TTLs had
	// passed, what each such server held, read from its own copy.
	Held map[string][]history.Entry `json:"held,omitempty"`
}

// observe reads the TTL bucket's stream as it is written, recording every
// value and marker, until ctx is done.
func (t *ttlKeys) observe(ctx context.Context) {
	nc, err := t.conns.Connect(len(t.conns.Nodes)-1, "chaos-ttl-observer")
	if err != nil {
		return
	}
	js, _ := jetstream.New(nc)
	sub, err := nc.Subscribe(republishSubject(t.o.ttlBucket())+".>", func(m *nats.Msg) {
		seq, err := strconv.ParseUint(m.Header.Get(jetstream.SequenceHeader), 10, 64)
		if err != nil {
			return
		}
		stored, _ := time.Parse(time.RFC3339Nano, m.Header.Get(jetstream.TimeStampHeaer))
		t.saw(m.Header.Get(jetstream.SubjectHeader), seq, m.Header, m.Data, stored, false, nc.ConnectedServerName())
	})
	if err == nil {
		_ = sub.SetPendingLimits(-1, -1)
		defer func() { _ = sub.Unsubscribe() }()
	}
	for ctx.Err() == nil {
		cfg := jetstream.OrderedConsumerConfig{DeliverPolicy: jetstream.DeliverAllPolicy}
		t.mu.Lock()
		if t.seen > 0 {
			cfg.DeliverPolicy, cfg.OptStartSeq = jetstream.DeliverByStartSequencePolicy, t.seen+1
		}
		t.mu.Unlock()
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		cons, err := js.OrderedConsumer(cctx, "KV_"+t.o.ttlBucket(), cfg)
		cancel()
		if err != nil {
			time.Sleep(250 * time.Millisecond)
			continue
		}
		cc, err := cons.Consume(func(m jetstream.Msg) {
			if md, err := m.Metadata(); err == nil {
				t.saw(m.Subject(), md.Sequence.Stream, m.Headers(), m.Data(), md.Timestamp, true, nc.ConnectedServerName())
			}
		})
		if err != nil {
			time.Sleep(250 * time.Millisecond)
			continue
		}
		select {
		case <-ctx.Done():
		case <-cc.Closed():
		}
		cc.Stop()
	}
}

// markerReason is the header a limit marker carries (nats-server
// stream.go JSMarkerReason; "MaxAge" for an expiry).
const markerReason = "Nats-Marker-Reason"

// saw records a message of the TTL bucket the first time either way of
// observing it delivers it; ordered says it came through the ordered
// consumer, whose position a restart resumes from.
func (t *ttlKeys) saw(subject string, seq uint64, h nats.Header, data []byte, stored time.Time, ordered bool, node string) {
	t.mu.Lock()
	dup := t.got[seq]
	t.got[seq] = true
	if ordered {
		t.seen = max(t.seen, seq)
	}
	t.mu.Unlock()
	if dup {
		return
	}
	s := TTLSeen{Key: keyOf(subject, t.o.ttlBucket()), Seq: seq, Reason: h.Get(markerReason), Stored: stored.UnixNano()}
	if s.Reason == "" {
		s.Value = string(data)
	}
	now := t.rec.Now()
	op := history.Op{Type: OpTTLSeen, Client: t.o.ttlClientBase() + t.o.TTLKeys, Node: node, Outcome: history.OK, Invoke: now, Complete: now}
	op.Data, _ = json.Marshal(s)
	t.rec.Add(op)
}

// keyOf is a KV subject's key.
func keyOf(subject, bucket string) string {
	p := "$KV." + bucket + "."
	if len(subject) > len(p) && subject[:len(p)] == p {
		return subject[len(p):]
	}
	return subject
}

// finish waits until every TTL in flight has passed (bounded: the run is
// over, so no new one starts), lets the observer read the stream to its
// end, and reads every server's state of the stream into TTLFile.
func (t *ttlKeys) finish(ctx context.Context, dir string, phase func(string)) error {
	phase("waiting for the TTLs to pass")
	t.mu.Lock()
	settled := time.Unix(0, t.last).Add(t.o.KeyTTL + t.o.LimitMarkerTTL + t.o.TTLSlack)
	t.mu.Unlock()
	select {
	case <-ctx.Done():
	case <-time.After(time.Until(settled)):
	}
	f := TTLFinal{Settled: settled.UnixNano()}
	s, err := t.js.Stream(ctx, "KV_"+t.o.ttlBucket())
	if err == nil {
		f.LastSeq = s.CachedInfo().State.LastSeq
		for end := time.Now().Add(15 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
			t.mu.Lock()
			seen := t.seen
			t.mu.Unlock()
			if f.Observed = seen >= f.LastSeq; f.Observed {
				break
			}
			f.Detail = "the observer stopped short of the stream's last sequence"
		}
	} else {
		f.Detail = "stream info: " + err.Error()
	}
	if f.Observed {
		f.Detail = ""
	}
	t.mu.Lock()
	for seq := uint64(1); seq <= f.LastSeq; seq++ {
		if !t.got[seq] {
			f.Missing = append(f.Missing, seq)
		}
	}
	t.mu.Unlock()
	if t.stop != nil {
		t.stop()
		<-t.done
	}
	phase("reading every TTL replica's state")
	rd := replicaread.Reader{Nodes: t.conns.Nodes, Stream: "KV_" + t.o.ttlBucket()}
	for start := time.Now(); ; time.Sleep(time.Second) {
		f.States = rd.States(ctx)
		if ttlSettled(f.States) == "" || time.Since(start) > t.o.ConvergeTimeout || ctx.Err() != nil {
			break
		}
	}
	if ttlSettled(f.States) != "" {
		f.Held = t.held(ctx)
	}
	return atomicfile.WriteJSON(filepath.Join(dir, TTLFile), f)
}

// held reads every server's own copy of the TTL bucket: the messages a
// server still holds once every TTL passed, each with its key, value or
// marker, stored time and Nats-TTL.
func (t *ttlKeys) held(ctx context.Context) map[string][]history.Entry {
	rd := replicaread.Reader{JS: t.js, Nodes: t.conns.Nodes, Stream: "KV_" + t.o.ttlBucket(), Entry: func(m jetstream.Msg, seq uint64) history.Entry {
		v := string(m.Data())
		if r := m.Headers().Get(markerReason); r != "" {
			v = "a marker, " + r
		}
		stored := ""
		if md, err := m.Metadata(); err == nil {
			stored = md.Timestamp.UTC().Format("15:04:05.000")
		}
		return history.Entry{Seq: seq, Key: keyOf(m.Subject(), t.o.ttlBucket()),
			Value: fmt.Sprintf("%s, stored %s, Nats-TTL %s", v, stored, m.Headers().Get("Nats-TTL"))}
	}}
	out := map[string][]history.Entry{}
	for _, rp := range rd.Read(ctx) {
		if len(rp.Entries) > 0 {
			out[rp.Node] = rp.Entries
		}
	}
	return out
}

// close closes the TTL keys' connections.
func (t *ttlKeys) close() {
	if t.stop != nil {
		t.stop()
		<-t.done
	}
	t.conns.Close()
}

// loadTTL reads TTLFile; ok is false when the cell has none.
func loadTTL(dir string) (f TTLFinal, ok bool, err error) {
	ok, err = atomicfile.ReadJSON(filepath.Join(dir, TTLFile), &f)
	return f, ok, err
}
