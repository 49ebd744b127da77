package kvupdate

import (
	"context"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/jetstream-chaos/jetstream-chaos/checker/replicas"
	"github.com/jetstream-chaos/jetstream-chaos/client/replicaread"
	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// ReadReplicas reads the bucket's stream from every server's own store
// (replicaread), each message as the observers see it: key, value and
// marker.
func (w *Workload) ReadReplicas(ctx context.Context) []replicas.Replica {
	return w.replicaReader(w.nodes).Read(ctx)
}

// replicaReader reads the bucket's stream on nodes: the cluster's servers
// as they are now, which after member-replace are not the ones the run
// started with (n3 became n3-r1).
func (w *Workload) replicaReader(nodes []cluster.Node) replicaread.Reader {
	prefix := "$KV." + w.opts.Bucket + "."
	return replicaread.Reader{JS: w.js, Nodes: nodes, Stream: w.StreamName(), Entry: func(m jetstream.Msg, seq uint64) history.Entry {
		return entryOf(m.Subject(), m.Headers(), m.Data(), seq, prefix)
	}}
}
