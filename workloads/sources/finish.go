package sources

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/jetstream-chaos/jetstream-chaos/client/replicaread"
	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/history"
	"github.com/jetstream-chaos/jetstream-chaos/internal/atomicfile"
)

// OriginReplicasFile holds, for a work-queue cell, every server's /jsz
// state of every origin after the copies settled.
const OriginReplicasFile = "origin-replicas.json"

// Finish waits for the copies (stepping a stalled copy's leader down once
// its bound passed), drains the consumers, reads every stream back and
// reads the origins' replicas, even after Ctrl-C: the checks need them.
func (i *instance) Finish(ctx context.Context) error {
	ctx = context.WithoutCancel(ctx)
	i.endSampling()
	i.env.Phase("waiting for the copies")
	i.waitCopies(ctx)
	cerr := i.cons.Finish(ctx)
	if cerr != nil {
		i.env.Logf("consumers: %v", cerr)
	}
	i.env.Phase("reading the streams back")
	var reads []StreamRead
	wq := i.o.Retention == WorkQueue
	for _, name := range i.o.OriginNames() {
		reads = append(reads, readStream(ctx, i.js, name, RoleOrigin, wq))
	}
	if m := i.o.Mirror(); m != "" {
		reads = append(reads, readStream(ctx, i.js, m, RoleMirror, false))
	}
	reads = append(reads, readStream(ctx, i.js, i.o.Sourced(), RoleSourced, false))
	for _, r := range reads {
		if r.Error != "" {
			i.env.Logf("read back %s: %s", r.Name, r.Error)
		}
	}
	b, err := json.Marshal(reads)
	if err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(i.env.Dir, StreamsFile), b); err != nil {
		return err
	}
	i.env.Phase("reading the origins' replicas")
	if wq {
		return errors.Join(cerr, i.saveOriginStates(ctx))
	}
	// A work-queue stream's consumers must acknowledge, so only limits
	// origins are read replica by replica.
	rd := replicaread.Reader{JS: i.js, Nodes: i.env.Cluster.Nodes(), Stream: i.o.Origin(1), Entry: replicaEntry}
	return errors.Join(cerr, replicaread.Save(ctx, rd, i.env.Dir, replicaBound, i.env.Logf))
}

// replicaBound is how long replicas that differ after the heal are read
// again before they count as diverged: kv-update's --converge-timeout
// default.
const replicaBound = 30 * time.Second

// waitCopies samples the copies until every one holds its origin's last
// sequence. A copy still behind is stepped down, once: past CopyBound when
// its leader is in contact with the origin (the server would not retry
// it), past retryBound when it is not (the server's own retry may still
// come); then one CopyBound more shows whether the step-down ended it.
func (i *instance) waitCopies(ctx context.Context) {
	start := time.Now()
	var stepped time.Time
	for {
		behind := stalled(i.copyState(ctx, true))
		if len(behind) == 0 {
			return
		}
		limit := retryBound
		for _, l := range behind {
			if l.live {
				limit = i.o.CopyBound.D()
			}
		}
		switch {
		case !stepped.IsZero() && time.Since(stepped) > i.o.CopyBound.D():
			i.env.Logf("copies still behind %s after their step-down: %v", i.o.CopyBound.D(), behind)
			return
		case stepped.IsZero() && time.Since(start) > limit:
			stepped = time.Now()
			for stream, l := range behind {
				i.stepDown(ctx, stream, l.link)
			}
		}
		time.Sleep(time.Second)
	}
}

// behindLink is a copy not holding its origin's last sequence, and
// whether its leader is in contact with the origin.
type behindLink struct {
	link string
	live bool
}

// stalled names, by the copy's stream, the links of a sample that do not
// hold their origin's last sequence, or that it could not read (nor their
// origin): nothing shows those caught up.
func stalled(s CopyState) map[string]behindLink {
	heads := map[string]Head{}
	for _, h := range s.Origins {
		heads[h.Name] = h
	}
	out := map[string]behindLink{}
	for _, l := range s.Links {
		h := heads[l.From]
		if l.Error != "" || h.Error != "" || l.Copied < h.LastSeq {
			live := inContact(l.ActiveMs)
			out[l.To] = behindLink{link: l.From + " -> " + l.To, live: live || out[l.To].live}
		}
	}
	return out
}

// stepDown asks stream's leader to step down and records it.
func (i *instance) stepDown(ctx context.Context, stream, link string) {
	h := i.env.History
	op := history.Op{Type: OpStepDown, Client: samplerClient, Node: i.admin.ConnectedServerName(), Invoke: h.Now()}
	i.env.Logf("%s stalled past --copy-bound %s: stepping %s's leader down", link, i.o.CopyBound.D(), stream)
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	reply, err := i.admin.RequestWithContext(cctx, "$JS.API.STREAM.LEADER.STEPDOWN."+stream, nil)
	cancel()
	op.Complete, op.Outcome = max(op.Invoke, h.Now()), history.OK
	var r struct {
		Error *struct {
			Description string `json:"description"`
			ErrCode     int    `json:"err_code"`
		} `json:"error"`
	}
	switch {
	case err != nil:
		op.Outcome, op.Err, op.ErrMsg = history.Fail, history.ErrOther, err.Error()
	case json.Unmarshal(reply.Data, &r) == nil && r.Error != nil:
		op.Outcome, op.Err, op.ErrCode, op.ErrMsg = history.Fail, history.ErrOther, r.Error.ErrCode, r.Error.Description
	}
	h.Add(withData(op, StepDown{Stream: stream, Link: link}))
}

// OriginState is one server's /jsz state of one origin.
type OriginState struct {
	Origin string               `json:"origin"`
	Node   string               `json:"node"`
	State  *cluster.StreamState `json:"state,omitempty"` // nil: no copy, or /jsz did not answer
	Error  string               `json:"error,omitempty"`
}

// saveOriginStates reads every server's state of every origin, again
// while the replicas of one disagree (up to replicaBound), and saves the
// last reading: a work-queue origin's replicas must agree on what was
// removed (nats-server issue 5450: on 2.10 only the leader removed).
func (i *instance) saveOriginStates(ctx context.Context) error {
	var states []OriginState
	for start := time.Now(); ; time.Sleep(time.Second) {
		states = i.originStates(ctx)
		if len(disagreements(states)) == 0 || time.Since(start) > replicaBound {
			break
		}
	}
	b, err := json.Marshal(states)
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(i.env.Dir, OriginReplicasFile), b)
}

func (i *instance) originStates(ctx context.Context) []OriginState {
	var out []OriginState
	m := cluster.Monitor{Timeout: 5 * time.Second}
	for _, n := range i.env.Cluster.Nodes() {
		j, err := m.JszStreams(ctx, n)
		for _, name := range i.o.OriginNames() {
			s := OriginState{Origin: name, Node: n.Name}
			if err != nil {
				s.Error = err.Error()
			} else if d, ok := j.Stream(name); ok {
				st := d.State
				s.State = &st
			}
			out = append(out, s)
		}
	}
	return out
}

// replicaEntry is an origin message as replicas compare it: its subject,
// body and Nats-Msg-Id.
func replicaEntry(m jetstream.Msg, seq uint64) history.Entry {
	return history.Entry{Seq: seq, Key: m.Subject(), Value: fmt.Sprintf("%s id %s", m.Data(), m.Headers().Get(jetstream.MsgIDHeader))}
}
