package cluster

import (
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"
)

func TestValidate(t *testing.T) {
	ok := Config{}.WithDefaults()
	cases := []struct {
		name string
		mod  func(*Config)
		want string // substring of the error; "" = valid
	}{
		{"defaults", func(*Config) {}, ""},
		{"pinned version", func(c *Config) { c.ServerVersion = "v2.10.7" }, ""},
		{"version without v", func(c *Config) { c.ServerVersion = "2.10.7" }, "vX.Y.Z"},
		{"zero nodes", func(c *Config) { c.Nodes = 0 }, "nodes"},
		{"tiny ping", func(c *Config) { c.RoutePingInterval = time.Millisecond }, "ping"},
		{"tiny memory", func(c *Config) { c.MemoryLimit = 1 << 20 }, "32 MiB"},
		{"sync always", func(c *Config) { c.SyncInterval = "always" }, ""},
		{"sync junk", func(c *Config) { c.SyncInterval = "often" }, "sync interval"},
		{"power-loss store", func(c *Config) { c.PowerLossStore = true }, ""},
		{"power-loss store on tmpfs", func(c *Config) { c.PowerLossStore, c.StoreOnTmpfs = true, true }, "tmpfs"},
		{"client user and password", func(c *Config) { c.ClientUser, c.ClientPassword = "app", "pw" }, ""},
		{"client user without a password", func(c *Config) { c.ClientUser = "app" }, "both a user and a password"},
		{"client password without a user", func(c *Config) { c.ClientPassword = "pw" }, "both a user and a password"},
		{"client user of the system account", func(c *Config) { c.ClientUser, c.ClientPassword = SystemUser, "pw" }, "system account"},
		{"client password too long", func(c *Config) { c.ClientUser, c.ClientPassword = "app", strings.Repeat("p", 73) }, "72 bytes"},
	}
	for _, c := range cases {
		cfg := ok
		c.mod(&cfg)
		err := cfg.Validate()
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: Validate() = %v, want %q", c.name, err, c.want)
		}
	}
}

func TestGoMemLimitPolicy(t *testing.T) {
	cases := []struct {
		limit, explicit, want int64
	}{
		{0, 0, 0},                  // no limit: leave GOMEMLIMIT unset
		{1000 << 20, 0, 800 << 20}, // 80 % of the hard limit
		{1000 << 20, 500 << 20, 500 << 20},
		{1000 << 20, -1, 0}, // explicitly unset
	}
	for _, c := range cases {
		got := Config{MemoryLimit: c.limit, GoMemLimit: GoMemLimit(c.explicit)}.GoMemLimitFor()
		if got != c.want {
			t.Errorf("limit %d explicit %d: got %d, want %d", c.limit, c.explicit, got, c.want)
		}
	}
}

func TestRender(t *testing.T) {
	cfg := Config{SyncInterval: "always", MaxOutstandingCatchup: 1 << 20}.WithDefaults()
	out := cfg.Render(ServerConf{Name: "n2", ClientPort: 4222, MonitorPort: 8222, ClusterPort: 6222,
		Routes: []string{"n1:6222", "n2:6222", "n3:6222"}, StoreDir: "/data"})
	for _, want := range []string{`server_name: "n2"`, `store_dir: "/data"`, `ping_interval: "1s"`, "ping_max: 3",
		"sync_interval: always", "max_outstanding_catchup: 1048576", `"nats-route://n3:6222"`,
		`accounts { $SYS { users = [ { user: "chaos-sys", password: "$2a$10$`} {
		if !strings.Contains(out, want) {
			t.Errorf("rendered config lacks %q:\n%s", want, out)
		}
	}
	solo := Config{Nodes: 1}.WithDefaults().Render(ServerConf{Name: "n1", StoreDir: "/data"})
	if strings.Contains(solo, "cluster {") {
		t.Errorf("a one-node config must have no cluster block:\n%s", solo)
	}
}

func TestRenderRoutePingsByVersion(t *testing.T) {
	for _, c := range []struct {
		version   string
		inCluster bool
	}{{"", true}, {"v2.15.3", true}, {"v2.11.8", true}, {"v2.10.7", false}, {"v2.9.24", false}} {
		out := Config{ServerVersion: c.version}.WithDefaults().Render(ServerConf{Name: "n1", Routes: []string{"n1:6222"}})
		cluster := out[strings.Index(out, "cluster {"):]
		if got := strings.Contains(cluster, "ping_interval"); got != c.inCluster {
			t.Errorf("%q: ping_interval in the cluster block = %v, want %v:\n%s", c.version, got, c.inCluster, out)
		}
		if !strings.Contains(out, `ping_interval: "1s"`) || !strings.Contains(out, "ping_max: 3") {
			t.Errorf("%q: route pings missing:\n%s", c.version, out)
		}
	}
}

func TestSystemPasswordHash(t *testing.T) {
	if err := bcrypt.CompareHashAndPassword([]byte(systemPasswordHash), []byte(SystemPassword)); err != nil {
		t.Errorf("the configs' hash does not match SystemPassword: %v", err)
	}
}

func TestExternalConfigHasNoRoutePingOfItsOwn(t *testing.T) {
	ext := Config{Nodes: 3, External: &External{}}.WithDefaults()
	if ext.RoutePingInterval != 0 || ext.RoutePingMax != 0 || ext.Validate() != nil {
		t.Errorf("external config %+v (validate %v): the servers' route pings are not the run's", ext, ext.Validate())
	}
	if w := ext.Words(); w != "3 nodes not started by the toolkit (route pings as the servers are configured)" {
		t.Errorf("words %q", w)
	}
	if w := (Config{}).WithDefaults().Words(); w != "3 nodes, route ping 1s" {
		t.Errorf("words %q", w)
	}
}

func TestExternalSummaryStatesServersAndTimeouts(t *testing.T) {
	c := Config{FaultVerifyTimeout: 2 * time.Minute, External: &External{
		Servers: []ExternalServer{{Name: "nats-0", ClientURL: "nats://nats-0:4222", Version: "2.11.8", ConfigDigest: "sha256:ab"},
			{Name: "nats-1", ClientURL: "nats://nats-1:4222", Version: "2.11.8"}},
		Auth: "creds /c", Hooks: map[string]string{"start": "s", "kill": "k"}, Streams: []string{"KV_chaos_1"},
		ConnectTimeout: time.Minute, HookTimeout: 5 * time.Minute}}
	want := "not started by the toolkit: nats-0 (nats://nats-0:4222, nats-server 2.11.8, config digest sha256:ab), " +
		"nats-1 (nats://nats-1:4222, nats-server 2.11.8, config digest none reported); auth creds /c; hooks kill start; " +
		"streams KV_chaos_1; connect timeout 1m0s, hook timeout 5m0s, fault verify timeout 2m0s, probe timeout the nemesis default"
	if got := c.ExternalSummary(); got != want {
		t.Errorf("summary\n%s\nwant\n%s", got, want)
	}
	if (Config{}).ExternalSummary() != "" {
		t.Errorf("a cluster the toolkit started has no external summary")
	}
}
