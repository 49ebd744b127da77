package cluster

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/jetstream-chaos/jetstream-chaos/cluster/serverbin"
)

// Config is everything a cluster is started from. It is saved with every run.
type Config struct {
	Name          string `json:"name"`           // cluster name
	Nodes         int    `json:"nodes"`          // default 3
	ServerVersion string `json:"server_version"` // e.g. v2.15.3; "" means the pinned default

	// Route liveness. The server defaults (2 min, capped at 30 s for routes)
	// let a silent partition go unnoticed for over a minute (nats-server
	// const.go DEFAULT_PING_INTERVAL, client.go routeMaxPingInterval).
	RoutePingInterval time.Duration `json:"route_ping_interval"`
	RoutePingMax      int           `json:"route_ping_max"`

	SyncInterval          string `json:"sync_interval,omitempty"`           // "", "always" or a duration such as "2m"
	MaxOutstandingCatchup int64  `json:"max_outstanding_catchup,omitempty"` // bytes; 0 = server default (64 MB)

	// MemoryLimit is each node's hard limit in bytes (0 = none). GoMemLimit
	// is the policy of the GOMEMLIMIT given to nats-server (GoMemLimitFor).
	// MaxMemoryStore bounds JetStream's memory storage, which otherwise
	// defaults to 75 % of the host's RAM.
	MemoryLimit    int64      `json:"memory_limit,omitempty"`
	GoMemLimit     GoMemLimit `json:"go_mem_limit,omitempty"`
	MaxMemoryStore int64      `json:"max_memory_store,omitempty"`

	StoreOnTmpfs bool `json:"store_on_tmpfs,omitempty"` // docker only; the default is a host directory

	// PowerLossStore serves each node's store through a FUSE layer that
	// remembers what was not fsynced (cluster/lazyfs), which PowerLosser
	// needs. Docker only; a run turns it on when a fault needs
	// CapPowerLoss.
	PowerLossStore bool `json:"power_loss_store,omitempty"`

	// AutoRestart restarts a node that died without being asked to (an OOM
	// kill, a crash), as Kubernetes would; NodeState.Restarts counts those,
	// which is how a crash loop shows.
	AutoRestart bool `json:"auto_restart,omitempty"`

	// FaultVerifyTimeout bounds each check of a fault's effect and of its
	// heal; ProbeTimeout bounds one monitoring request (a paused node is one
	// that does not answer within it). 0 keeps the nemesis defaults (20 s,
	// 2 s); a remote cluster may need longer.
	FaultVerifyTimeout time.Duration `json:"fault_verify_timeout,omitempty"`
	ProbeTimeout       time.Duration `json:"probe_timeout,omitempty"`

	// ClientUser and ClientPassword turn client authentication on (`chaos
	// cluster up --user`): clients log in as this user to the account
	// CHAOS, which has JetStream; without them they need no credentials.
	// The password lives in memory only (the configs hold its bcrypt hash)
	// and reaches every client of the toolkit through the nodes' Dial.
	ClientUser     string `json:"client_user,omitempty"`
	ClientPassword string `json:"-"`

	// External describes a cluster the toolkit did not start (--runtime
	// external): what its servers reported, the hooks and the timeouts.
	External *External `json:"external,omitempty"`

	// Dir holds node configs, stores and logs for this cluster.
	Dir string `json:"dir"`
	// RunID labels everything the cluster creates, so leftovers can be swept.
	RunID string `json:"run_id"`
}

// WithDefaults fills unset fields.
func (c Config) WithDefaults() Config {
	if c.Name == "" {
		c.Name = "chaos"
	}
	if c.Nodes == 0 {
		c.Nodes = 3
	}
	if c.RoutePingInterval == 0 && c.External == nil { // an external cluster's are its own, unknown to the run
		c.RoutePingInterval = time.Second
	}
	if c.RoutePingMax == 0 && c.External == nil {
		c.RoutePingMax = 3
	}
	if c.MemoryLimit > 0 && c.MaxMemoryStore == 0 {
		c.MaxMemoryStore = c.MemoryLimit / 4
	}
	return c
}

var versionRE = regexp.MustCompile(`^v\d+\.\d+\.\d+(-[0-9A-Za-z.\-]+)?$`)

// Validate reports the first bad field in one line.
func (c Config) Validate() error {
	switch {
	case c.Nodes < 1 || c.Nodes > 9:
		return fmt.Errorf("nodes must be 1..9, got %d", c.Nodes)
	case c.ServerVersion != "" && !versionRE.MatchString(c.ServerVersion) && !serverbin.IsLocal(c.ServerVersion):
		return fmt.Errorf("server version %q is not of the form vX.Y.Z, nor a build of --server-source or --server-bin", c.ServerVersion)
	case c.RoutePingInterval < 100*time.Millisecond && c.External == nil:
		return fmt.Errorf("route ping interval %s is below 100ms", c.RoutePingInterval)
	case c.MemoryLimit < 0:
		return fmt.Errorf("memory limit must not be negative")
	case c.FaultVerifyTimeout < 0 || c.ProbeTimeout < 0:
		return fmt.Errorf("fault verify and probe timeouts must not be negative")
	case c.MemoryLimit > 0 && c.MemoryLimit < 32<<20:
		return fmt.Errorf("memory limit %d bytes is below 32 MiB; nats-server cannot start", c.MemoryLimit)
	case c.PowerLossStore && c.StoreOnTmpfs:
		return fmt.Errorf("the power-loss store is a FUSE layer over a host directory; it cannot be on tmpfs")
	case (c.ClientUser == "") != (c.ClientPassword == ""):
		return fmt.Errorf("client authentication needs both a user and a password")
	case c.ClientUser == SystemUser:
		return fmt.Errorf("client user %q is the system account's", SystemUser)
	case len(c.ClientPassword) > 72:
		return fmt.Errorf("client password: at most 72 bytes (bcrypt's limit)")
	}
	if s := c.SyncInterval; s != "" && s != "always" {
		if _, err := time.ParseDuration(s); err != nil {
			return fmt.Errorf("sync interval %q: want \"always\" or a duration", s)
		}
	}
	return nil
}

// Words describe the cluster for the report: its size and route pings.
func (c Config) Words() string {
	if c.External != nil {
		return fmt.Sprintf("%d nodes not started by the toolkit (route pings as the servers are configured)", c.Nodes)
	}
	return fmt.Sprintf("%d nodes, route ping %s", c.Nodes, c.RoutePingInterval)
}

// GoMemLimitFor is the GOMEMLIMIT the nodes get under the config's policy
// (by default 80 % of the hard limit); 0 means leave it unset.
func (c Config) GoMemLimitFor() int64 { return c.GoMemLimit.Bytes(c.MemoryLimit) }

// The system account's user, for the server APIs only it may call
// ($JS.API.SERVER.REMOVE). Clients without credentials stay in the global
// account: with no other account configured the server gives them a
// no-auth user there (nats-server server.go, sysAccOnlyNoAuthUser), as its
// own cluster tests do. Loopback and a private network only.
const (
	SystemUser     = "chaos-sys"
	SystemPassword = "chaos-sys"
	// systemPasswordHash is SystemPassword's bcrypt hash, which the configs
	// hold: the server warns about plaintext passwords.
	systemPasswordHash = "$2a$10$g5XsJ.NLbC6UhjuhD6JYMOYhBjnPka3Bn.B0bwyRUFEwYN.0Fn5Gy"
)

// clientPasswordHash is ClientPassword's bcrypt hash for the configs: the
// server warns about plaintext passwords.
func (c Config) clientPasswordHash() string {
	h, err := bcrypt.GenerateFromPassword([]byte(c.ClientPassword), bcrypt.DefaultCost)
	if err != nil { // longer than bcrypt's 72 bytes: Validate let it through
		panic("cluster: client password: " + err.Error())
	}
	return string(h)
}

// NodeName is the server_name of node i.
func NodeName(i int) string { return fmt.Sprintf("n%d", i+1) }

// ServerConf is one node's nats-server configuration.
type ServerConf struct {
	Name        string
	ClientPort  int
	MonitorPort int
	ClusterPort int
	Host        string   // listen address
	Routes      []string // host:port of every node's cluster listener, itself included
	StoreDir    string
}

// Render writes a nats-server config file for one node.
func (c Config) Render(s ServerConf) string {
	var b strings.Builder
	host := s.Host
	if host == "" {
		host = "0.0.0.0"
	}
	fmt.Fprintf(&b, "server_name: %q\n", s.Name)
	if !c.hasClusterPings() {
		// Before 2.11 routes take their pings from the top-level settings,
		// which clients share; the cluster block rejects them.
		fmt.Fprintf(&b, "ping_interval: %q\nping_max: %d\n", c.RoutePingInterval.String(), c.RoutePingMax)
	}
	fmt.Fprintf(&b, "listen: \"%s:%d\"\n", host, s.ClientPort)
	fmt.Fprintf(&b, "http: \"%s:%d\"\n", host, s.MonitorPort)
	b.WriteString("jetstream {\n")
	fmt.Fprintf(&b, "  store_dir: %q\n", s.StoreDir)
	if c.MaxMemoryStore > 0 {
		fmt.Fprintf(&b, "  max_memory_store: %d\n", c.MaxMemoryStore)
	}
	if c.SyncInterval != "" {
		fmt.Fprintf(&b, "  sync_interval: %s\n", c.SyncInterval)
	}
	if c.MaxOutstandingCatchup > 0 {
		fmt.Fprintf(&b, "  max_outstanding_catchup: %d\n", c.MaxOutstandingCatchup)
	}
	b.WriteString("}\n")
	if c.ClientUser != "" {
		fmt.Fprintf(&b, "accounts {\n  $SYS { users = [ { user: %q, password: %q } ] }\n", SystemUser, systemPasswordHash)
		fmt.Fprintf(&b, "  CHAOS { jetstream: enabled, users = [ { user: %q, password: %q } ] }\n}\n", c.ClientUser, c.clientPasswordHash())
	} else {
		fmt.Fprintf(&b, "accounts { $SYS { users = [ { user: %q, password: %q } ] } }\n", SystemUser, systemPasswordHash)
	}
	if c.Nodes == 1 {
		// A lone server with a cluster block waits for routes forever.
		return b.String()
	}
	b.WriteString("cluster {\n")
	fmt.Fprintf(&b, "  name: %q\n", c.Name)
	fmt.Fprintf(&b, "  listen: \"%s:%d\"\n", host, s.ClusterPort)
	if c.hasClusterPings() {
		fmt.Fprintf(&b, "  ping_interval: %q\n", c.RoutePingInterval.String())
		fmt.Fprintf(&b, "  ping_max: %d\n", c.RoutePingMax)
	}
	b.WriteString("  routes: [\n")
	for _, r := range s.Routes {
		fmt.Fprintf(&b, "    \"nats-route://%s\"\n", r)
	}
	b.WriteString("  ]\n}\n")
	return b.String()
}

// hasClusterPings says whether the server reads ping_interval and ping_max
// in its cluster block, which came in 2.11. An empty version is the pinned
// default, which is newer.
func (c Config) hasClusterPings() bool {
	var major, minor int
	if _, err := fmt.Sscanf(c.ServerVersion, "v%d.%d.", &major, &minor); err != nil {
		return true
	}
	return major > 2 || (major == 2 && minor >= 11)
}
