// Package cluster starts, breaks, inspects and throws away a JetStream
// cluster. A Runtime (Docker containers or local processes) implements the
// small Cluster interface; faults and workloads only ever see that interface.
package cluster

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Capability is a control a fault may need. A runtime either does it for
// real or refuses it: never fakes it.
type Capability string

const (
	CapKill        Capability = "kill"
	CapStop        Capability = "stop"
	CapPause       Capability = "pause"
	CapWipe        Capability = "wipe"
	CapMemoryLimit Capability = "memory-limit"
	CapPartition   Capability = "partition"
	CapLatency     Capability = "latency"
	CapLoss        Capability = "loss"
)

// ErrUnsupported wraps every "this runtime cannot do that" refusal.
var ErrUnsupported = errors.New("unsupported")

// Unsupported builds a refusal that says why.
func Unsupported(runtime string, c Capability, why string) error {
	return fmt.Errorf("%w: the %s runtime cannot %s: %s", ErrUnsupported, runtime, c, why)
}

// Node is how to reach one server. URLs can change after a restart on some
// runtimes, so read Nodes() again after Start rather than caching them.
type Node struct {
	Name       string `json:"name"`        // server_name, e.g. "n1"
	ClientURL  string `json:"client_url"`  // nats://127.0.0.1:port
	MonitorURL string `json:"monitor_url"` // http://127.0.0.1:port
	// Dial is what a client needs besides the URL (credentials, TLS) on a
	// cluster the toolkit did not start; nil elsewhere. Never saved.
	Dial *Dial `json:"-"`
}

// NodeState is what the runtime knows about a node's process.
type NodeState struct {
	Running   bool      `json:"running"`
	Paused    bool      `json:"paused"`
	OOMKilled bool      `json:"oom_killed"` // the last exit was an OOM kill
	OOMKills  int       `json:"oom_kills"`  // OOM kills seen since start
	Restarts  int       `json:"restarts"`   // restarts not asked for (crash loop detection)
	ExitCode  int       `json:"exit_code"`
	StartedAt time.Time `json:"started_at"`
}

// Cluster is a running set of nats-server nodes. Node indices are 0-based.
type Cluster interface {
	Runtime() string
	Config() Config
	Nodes() []Node

	Kill(ctx context.Context, node int) error  // SIGKILL, no restart
	Stop(ctx context.Context, node int) error  // graceful shutdown
	Start(ctx context.Context, node int) error // start a stopped or killed node
	Pause(ctx context.Context, node int) error // freeze the process
	Resume(ctx context.Context, node int) error
	// Wipe deletes the node's store. The node must be down; Start brings it
	// back empty, so it must catch up from its peers.
	Wipe(ctx context.Context, node int) error

	// SetMemoryLimit changes a node's hard memory limit (0 removes it).
	SetMemoryLimit(ctx context.Context, node int, bytes int64) error
	// Memory is the node's current memory use in bytes, as the limit sees it.
	Memory(ctx context.Context, node int) (int64, error)
	State(ctx context.Context, node int) (NodeState, error)

	// Partition drops all packets between nodes of different groups. Nodes in
	// no group are cut off from everyone. Clients keep reaching every node.
	Partition(ctx context.Context, groups [][]int) error
	// Heal removes every partition.
	Heal(ctx context.Context) error

	// Supports says whether a control is real on this cluster (nil) or why not.
	Supports(c Capability) error

	// Close saves node logs into Config().Dir/logs and removes everything the
	// cluster started. It is safe to call more than once.
	Close(ctx context.Context) error
}

// Runtime starts clusters.
type Runtime interface {
	Name() string
	Start(ctx context.Context, cfg Config) (Cluster, error)
	Supports(c Capability) error
}
