package queue

import (
	"context"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// sampleEvery is how often the sampler asks each consumer for its pending
// counts (the pending-over-time series and the stall checker's evidence).
const sampleEvery = time.Second

// sample records every consumer's pending counts once a second until ctx
// is done.
func (i *instance) sample(ctx context.Context) error {
	t := time.NewTicker(sampleEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		for c, name := range i.o.ConsumerNames() {
			i.add(i.sampleOne(c, name, samplerClient+c))
		}
	}
}

// sampleOne is one consumer-info op: for a durable consumer, its
// NumPending (not yet delivered), NumAckPending (delivered, not
// acknowledged), NumRedelivered and leader; for an ordered subscription,
// which the server does not know by name, Pending is the stream's last
// sequence minus the last one it delivered.
func (i *instance) sampleOne(c int, name string, client int) Op {
	op := Op{Op: history.Op{Client: client, Node: i.admin.ConnectedServerName(), Type: OpConsumerInfo, Invoke: i.now()}, M: Msg{Consumer: name}}
	ctx, cancel := context.WithTimeout(context.Background(), sampleEvery)
	defer cancel()
	if i.o.Pattern == Ordered {
		s, err := i.js.Stream(ctx, i.o.stream())
		if err == nil {
			last, seen := s.CachedInfo().State.LastSeq, i.lastSeq[c].Load()
			if last > seen {
				op.M.Pending = last - seen
			}
			if s.CachedInfo().Cluster != nil {
				op.M.Leader = s.CachedInfo().Cluster.Leader
			}
		}
		op.Complete = i.now()
		recordErr(&op.Op, err, false)
		return op
	}
	cons, err := i.js.Consumer(ctx, i.o.stream(), name)
	op.Complete = i.now()
	recordErr(&op.Op, err, false)
	if err == nil {
		info := cons.CachedInfo()
		op.M.Pending, op.M.AckPending, op.M.Redelivered = info.NumPending, uint64(info.NumAckPending), uint64(info.NumRedelivered)
		if info.Cluster != nil {
			op.M.Leader = info.Cluster.Leader
		}
	}
	return op
}
