// Package cluster starts, breaks, inspects and throws away a JetStream
// cluster. A Runtime (Docker containers or local processes) implements the
// small Cluster interface; faults and workloads only ever see that interface.
package cluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
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
	CapPowerLoss   Capability = "power-loss" // see PowerLosser
	CapLoss        Capability = "loss"       // SetLoss
	CapBandwidth   Capability = "bandwidth"  // SetRate
	CapStoreFiles  Capability = "store-files"
	CapRename      Capability = "rename" // StartAs
	CapLogs        Capability = "logs"   // LogFollower: follow a node's log as it is written
)

// ErrUnsupported wraps every "this runtime cannot do that" refusal.
var ErrUnsupported = errors.New("unsupported")

// capabilityDoes says what each capability does, for refusals.
var capabilityDoes = map[Capability]string{
	CapKill: "kill a node", CapStop: "stop a node", CapPause: "pause a node", CapWipe: "wipe a node's store",
	CapMemoryLimit: "limit a node's memory", CapPartition: "partition nodes", CapLatency: "add network latency",
	CapPowerLoss: "cut a node's power", CapLoss: "drop packets", CapBandwidth: "limit bandwidth",
	CapStoreFiles: "edit a node's store files", CapRename: "restart a node under a new name", CapLogs: "follow node logs",
}

// Unsupported builds a refusal that says why.
func Unsupported(runtime string, c Capability, why string) error {
	does := string(c)
	if d, ok := capabilityDoes[c]; ok {
		does = d + " (" + string(c) + ")"
	}
	return fmt.Errorf("%w: the %s runtime cannot %s: %s", ErrUnsupported, runtime, does, why)
}

var serverNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// ValidServerName says why name cannot be a server_name here (it goes into
// configs, file names and monitoring URLs unquoted), or nil.
func ValidServerName(name string) error {
	if !serverNameRE.MatchString(name) {
		return fmt.Errorf("server name %q: want 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit", name)
	}
	return nil
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
	// FinishedAt is when the node's process last ended, as the runtime saw
	// it exit (zero if it never did): when a kill took effect.
	FinishedAt time.Time `json:"finished_at,omitzero"`
}

// NetStats is what a node's network shaping counted, read from the kernel
// (nftables rule counters, tc qdisc statistics). Zero values mean the part
// is off.
type NetStats struct {
	LossPercent float64 `json:"loss_percent"` // the random drop in force
	LossSeen    uint64  `json:"loss_seen"`    // packets to and from peers the loss rules saw
	LossDropped uint64  `json:"loss_dropped"` // of which dropped

	Rate           uint64 `json:"rate"`            // bytes/s of the rate limit in force
	RateBytes      uint64 `json:"rate_bytes"`      // bytes sent through it
	RatePackets    uint64 `json:"rate_packets"`    // packets sent through it
	RateDrops      uint64 `json:"rate_drops"`      // packets it dropped (queue full)
	RateOverlimits uint64 `json:"rate_overlimits"` // times a packet had to wait for tokens
}

// Cluster is a running set of nats-server nodes. Node indices are 0-based.
// The errors of the node controls name the control and the node ("kill n1:
// ..."), so callers need not add them again.
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

	// SetLoss drops percent of the packets between node and its peers, each
	// way, at random (0 removes it). Client traffic is not touched. It
	// holds across the node's restarts until removed. CapLoss.
	SetLoss(ctx context.Context, node int, percent float64) error
	// SetRate limits what node sends, to clients and peers alike, to
	// bytesPerSec (0 removes it). It holds across restarts. CapBandwidth.
	SetRate(ctx context.Context, node int, bytesPerSec uint64) error
	// NetStats reads the counters of the node's loss and rate limit. The
	// node must be running. CapLoss or CapBandwidth.
	NetStats(ctx context.Context, node int) (NetStats, error)

	// StoreDir is the host directory that is the node's store_dir, for
	// faults that change its files while the node is down. CapStoreFiles.
	StoreDir(node int) (string, error)
	// StartAs starts a down node as a different server: server_name name
	// from now on (Nodes() says so), same ports and store. Wipe it first
	// to make it a fresh server. CapRename.
	StartAs(ctx context.Context, node int, name string) error

	// Supports says whether a control is real on this cluster (nil) or why not.
	Supports(c Capability) error

	// Close saves node logs into Config().Dir/logs and removes everything the
	// cluster started. It is safe to call more than once.
	Close(ctx context.Context) error
}

// PowerLosser is a Cluster that can cut nodes' power: kill them at the same
// instant and lose every write they had not fsynced, as a machine that loses
// power does (a plain kill loses nothing: the page cache survives it). The
// nodes stay down; Start brings them back on what survived. It is real only
// where Supports(CapPowerLoss) is nil.
type PowerLosser interface {
	PowerLoss(ctx context.Context, nodes []int) ([]Discard, error)
}

// LogFollower is a Cluster that can follow a node's log as the server
// writes it, for faults triggered by a log line (package watch). The
// external runtime has no logs; it is not one.
type LogFollower interface {
	// FollowLog streams the lines node writes to its log from about now on
	// (a runtime may replay the last second), each line as the server wrote
	// it, until ctx is done or the node's process ends; a caller that wants
	// more after a restart calls it again. It fails at once when the node is
	// not running. Read returns io.EOF once the process has ended and all
	// it wrote is read, and ctx's error once ctx is done.
	FollowLog(ctx context.Context, node int) (io.ReadCloser, error)
}

// Discard is what a power loss threw away from one node's store.
type Discard struct {
	Node    string `json:"node"`
	Bytes   int64  `json:"bytes"`   // unsynced bytes discarded (cut off, restored over, or in removed files)
	Files   int    `json:"files"`   // files rolled back to their synced size and contents
	Undone  int    `json:"undone"`  // creates, unlinks and renames undone
	Written int64  `json:"written"` // bytes the node wrote since its store was last mounted (its start or last power loss)
	Fsyncs  int64  `json:"fsyncs"`  // fsyncs it made meanwhile
	// Largest names the files that lost the most, as "path (N bytes)",
	// largest first, at most 3.
	Largest []string `json:"largest,omitempty"`
}

// Runtime starts clusters.
type Runtime interface {
	Name() string
	Start(ctx context.Context, cfg Config) (Cluster, error)
	Supports(c Capability) error
}
