package schedule

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/jetstream-chaos/jetstream-chaos/checker/replicas"
	"github.com/jetstream-chaos/jetstream-chaos/client"
	"github.com/jetstream-chaos/jetstream-chaos/client/replicaread"
	"github.com/jetstream-chaos/jetstream-chaos/client/streamread"
	"github.com/jetstream-chaos/jetstream-chaos/history"
	"github.com/jetstream-chaos/jetstream-chaos/internal/atomicfile"
	"github.com/jetstream-chaos/jetstream-chaos/internal/ctxtime"
)

// FinalFile holds the targets as read back after the heal (a Final).
const FinalFile = "schedule-final.json"

// Final is every firing read back from the leader after the heal. In a
// work-queue cell it is the stream sourcing the targets plus the targets
// still in the work queue, each once (by its sequence there, OriginSeq).
// Complete says every stored message was read; Detail says why not.
// Replicas says every server's copy of the schedule stream was saved for
// schedule-removed and replica-divergence.
type Final struct {
	Firings  []Firing `json:"firings"`
	Complete bool     `json:"complete"`
	Detail   string   `json:"detail,omitempty"`
	Replicas bool     `json:"replicas"`
	// ReadAt is when the read-back began (Unix ns): a schedule not yet
	// past its deadline then may still have fired after.
	ReadAt int64 `json:"read_at"`
	// Work-queue cells only, where no consumer can read one server's
	// copy (its consumers must have the stream's replicas, error 10134):
	// the schedules the leader's copy holds after the finish, and every
	// server's /jsz state of the schedule stream, read again while they
	// differ.
	LeaderSchedules []history.Entry    `json:"leader_schedules,omitempty"`
	States          []replicas.Replica `json:"states,omitempty"`
}

// Finish waits for the one-shots to fire, lets the repeating schedules
// fire on after the heal, stops them, stops the live consumer, and reads
// the targets back and every replica of the schedules; even after
// Ctrl-C, as the checks need them.
func (i *instance) Finish(ctx context.Context) error {
	ctx = context.WithoutCancel(ctx)
	i.env.Phase("waiting for the schedules to fire")
	i.awaitFirings(ctx)
	i.stopRepeats(ctx)
	ctxtime.Sleep(ctx, time.Second) // a firing in flight as the stop landed
	if i.watchStop != nil {
		i.watchStop()
		<-i.watchDone
	}
	i.env.Phase("reading the targets back")
	f := i.readFirings(ctx)
	var rerr error
	if i.o.Retention == RetentionWorkQueue {
		f.States = i.readStates(ctx)
	} else {
		rerr = i.readReplicas(ctx)
		f.Replicas = rerr == nil
	}
	if err := atomicfile.WriteJSON(filepath.Join(i.env.Dir, FinalFile), f); err != nil {
		return err
	}
	i.env.ReadBack(len(f.Firings), f.Complete)
	return rerr
}

// awaitFirings waits until every acknowledged one-shot was seen fired and
// the last one's due time plus --fire-bound has passed, and, with
// repeating schedules, two periods more; at most --fire-grace past the
// later of now and the last due time (the heal is over by now).
func (i *instance) awaitFirings(ctx context.Context) {
	start := time.Now()
	i.mu.Lock()
	last := time.Unix(0, i.lastDue)
	i.mu.Unlock()
	limit := maxTime(start, last).Add(i.o.FireGrace)
	atLeast := last.Add(i.o.FireBound)
	if i.o.Repeating > 0 {
		atLeast = maxTime(atLeast, start.Add(2*i.o.Every+i.o.FireBound))
	}
	for time.Now().Before(limit) && ctx.Err() == nil {
		i.mu.Lock()
		left := len(i.waiting)
		i.mu.Unlock()
		if left == 0 && time.Now().After(atLeast) {
			return
		}
		ctxtime.Sleep(ctx, 100*time.Millisecond)
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	if len(i.waiting) > 0 {
		i.env.Logf("%d acknowledged one-shot schedules not seen fired after %s", len(i.waiting), time.Since(start).Round(time.Second))
	}
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// stopRepeats purges every repeating schedule, recording when: it fires
// no more after.
func (i *instance) stopRepeats(ctx context.Context) {
	if len(i.repeats) == 0 {
		return
	}
	s, err := i.js.Stream(ctx, i.o.Stream)
	for k, subj := range i.repeats {
		wall, now := time.Now().UnixNano(), i.env.History.Now()
		if err == nil {
			err = client.RetryTransient(ctx, 15*time.Second, func(ctx context.Context) error {
				return s.Purge(ctx, jetstream.WithPurgeSubject(subj))
			})
		}
		op := history.Op{Type: OpStop, Client: i.o.Clients*len(i.nodes) + k, Key: subj, Invoke: now, Complete: max(now, i.env.History.Now())}
		if err != nil {
			c := client.Classify(err)
			op.Outcome, op.Err, op.ErrCode, op.ErrMsg = c.Outcome(true), c.Kind, c.Code, c.Msg
		} else {
			op.Outcome = history.OK
		}
		op.Data, _ = json.Marshal(Stop{Subject: subj, Wall: wall})
		i.env.History.Add(op)
	}
}

// readFirings reads the targets back from the leader: the targets stream,
// and in a work-queue cell also the targets still in the work queue.
func (i *instance) readFirings(ctx context.Context) Final {
	readAt := time.Now().UnixNano()
	res := streamread.Read(ctx, i.js, i.o.Targets(), false)
	f := Final{Complete: res.Complete, Detail: res.Error, ReadAt: readAt}
	byOrigin := map[uint64]bool{}
	for _, m := range res.Messages {
		fi := firingOf(m.Seq, m.Subject, m.Data, m.Header, m.Time)
		if i.o.Retention == RetentionWorkQueue {
			_, fi.OriginSeq = streamread.SourceOf(m.Header.Get(streamread.SourceHeader))
			byOrigin[fi.OriginSeq] = true
		}
		f.Firings = append(f.Firings, fi)
	}
	if i.o.Retention != RetentionWorkQueue {
		return f
	}
	wq := streamread.Read(ctx, i.js, i.o.Stream, true)
	if !wq.Complete {
		f.Complete = false
		f.Detail = joinDetail(f.Detail, fmt.Sprintf("work queue %s: %s", i.o.Stream, wq.Error))
	}
	f.LeaderSchedules = []history.Entry{}
	for _, m := range wq.Messages {
		if strings.HasPrefix(m.Subject, i.o.ScheduleSubject("")) {
			f.LeaderSchedules = append(f.LeaderSchedules, history.Entry{Seq: m.Seq, Key: m.Subject, Value: string(m.Data)})
		}
		if m.Header.Get(HeaderScheduler) == "" || byOrigin[m.Seq] {
			continue // a schedule, or a target already sourced
		}
		fi := firingOf(m.Seq, m.Subject, m.Data, m.Header, m.Time)
		fi.OriginSeq, fi.InOrigin = m.Seq, true
		f.Firings = append(f.Firings, fi)
	}
	return f
}

func joinDetail(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// readStates reads every server's /jsz state of the schedule stream,
// again while they differ, up to replicaBound.
func (i *instance) readStates(ctx context.Context) []replicas.Replica {
	i.env.Phase("reading every replica's state")
	rd := replicaread.Reader{Nodes: i.env.Cluster.Nodes(), Stream: i.o.Stream}
	for start := time.Now(); ; ctxtime.Sleep(ctx, time.Second) {
		states := rd.States(ctx)
		if statesAgree(states) == "" || time.Since(start) > replicaBound || ctx.Err() != nil {
			return states
		}
	}
}

// readReplicas reads every server's copy of the schedule stream (a limits
// cell's), again while they differ (up to replicaBound), and saves them.
func (i *instance) readReplicas(ctx context.Context) error {
	i.env.Phase("reading every replica")
	rd := replicaread.Reader{JS: i.js, Nodes: i.env.Cluster.Nodes(), Stream: i.o.Stream, Entry: replicaEntry}
	return replicaread.Save(ctx, rd, i.env.Dir, replicaBound, i.env.Logf)
}

// replicaBound is how long replicas that differ after the heal are read
// again before they count as diverged: kv-update's --converge-timeout
// default.
const replicaBound = 30 * time.Second

// replicaEntry is a message as the replicas compare it: its subject, its
// body and the schedule that fired it, if any.
func replicaEntry(m jetstream.Msg, seq uint64) history.Entry {
	v := string(m.Data())
	if s := m.Headers().Get(HeaderScheduler); s != "" {
		v += " fired by " + s + " next " + m.Headers().Get(HeaderNext)
	}
	return history.Entry{Seq: seq, Key: m.Subject(), Value: v}
}

// loadFinal reads FinalFile; ok is false when the cell has none.
func loadFinal(dir string) (f Final, ok bool, err error) {
	ok, err = atomicfile.ReadJSON(filepath.Join(dir, FinalFile), &f)
	return f, ok, err
}

// SettingsFile holds the cell's Options from its setup on: the checks'
// bounds, in a cell that stopped before its finish too.
const SettingsFile = "schedule.json"

func writeSettings(dir string, o Options) error {
	return atomicfile.WriteJSON(filepath.Join(dir, SettingsFile), o)
}

// settingsOf reads SettingsFile; ok is false when the cell has none or
// it does not decode.
func settingsOf(dir string) (o Options, ok bool) {
	ok, err := atomicfile.ReadJSON(filepath.Join(dir, SettingsFile), &o)
	return o, ok && err == nil
}
