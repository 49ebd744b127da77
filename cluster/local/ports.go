package local

import (
	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

// nodePorts are one node's listeners. They are picked once per cluster and
// kept across restarts, so a node's URLs stay valid for the whole run.
type nodePorts struct {
	Client, Monitor, Cluster int
}

// pickNodePorts picks client, monitor and cluster ports for nodes nodes.
func pickNodePorts(nodes int) ([]nodePorts, error) {
	p, err := cluster.FreePorts(3 * nodes)
	if err != nil {
		return nil, err
	}
	out := make([]nodePorts, nodes)
	for i := range out {
		out[i] = nodePorts{Client: p[3*i], Monitor: p[3*i+1], Cluster: p[3*i+2]}
	}
	return out, nil
}
