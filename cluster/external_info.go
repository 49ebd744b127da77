package cluster

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// External is the record of a cluster the toolkit did not start: the
// servers as their /varz described them when the run connected, the hooks
// that injected faults, the streams the run created (and deleted), and the
// timeouts that suit a remote cluster. It is saved with every cell.
type External struct {
	Servers []ExternalServer  `json:"servers"`
	Auth    string            `json:"auth"`            // how clients authenticated, no secret: "creds FILE", "user NAME", "none"
	Hooks   map[string]string `json:"hooks,omitempty"` // control -> command template
	Streams []string          `json:"streams"`         // what the run may create; deleted after each cell

	ConnectTimeout time.Duration `json:"connect_timeout"` // servers answer, cluster ready
	HookTimeout    time.Duration `json:"hook_timeout"`    // one hook command
}

// ExternalServer is one server as it described itself.
type ExternalServer struct {
	Name         string    `json:"name"`
	ClientURL    string    `json:"client_url"`
	MonitorURL   string    `json:"monitor_url"`
	Version      string    `json:"version"`
	GitCommit    string    `json:"git_commit,omitempty"`
	ConfigDigest string    `json:"config_digest,omitempty"` // /varz config_digest (2.10+)
	Cluster      string    `json:"cluster,omitempty"`
	Start        time.Time `json:"start"`
}

// Versions lists the distinct server versions, sorted.
func (e *External) Versions() []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range e.Servers {
		if !seen[s.Version] {
			seen[s.Version] = true
			out = append(out, s.Version)
		}
	}
	sort.Strings(out)
	return out
}

// Summary says in one line what the cluster was: for the report and JUnit.
func (e *External) Summary() string {
	if e == nil {
		return ""
	}
	var servers []string
	for _, s := range e.Servers {
		d := s.ConfigDigest
		if d == "" {
			d = "none reported"
		}
		servers = append(servers, fmt.Sprintf("%s (%s, nats-server %s, config digest %s)", s.Name, s.ClientURL, s.Version, d))
	}
	hooks := make([]string, 0, len(e.Hooks))
	for h := range e.Hooks {
		hooks = append(hooks, h)
	}
	sort.Strings(hooks)
	if len(hooks) == 0 {
		hooks = []string{"none"}
	}
	return fmt.Sprintf("not started by the toolkit: %s; auth %s; hooks %s; streams %s; connect timeout %s, hook timeout %s",
		strings.Join(servers, ", "), e.Auth, strings.Join(hooks, " "), strings.Join(e.Streams, " "), e.ConnectTimeout, e.HookTimeout)
}

// ExternalSummary is External.Summary plus the fault timeouts, or "" when
// the cluster was started by the toolkit.
func (c Config) ExternalSummary() string {
	if c.External == nil {
		return ""
	}
	return fmt.Sprintf("%s, fault verify timeout %s, probe timeout %s", c.External.Summary(), orNemesisDefault(c.FaultVerifyTimeout), orNemesisDefault(c.ProbeTimeout))
}

func orNemesisDefault(d time.Duration) string {
	if d == 0 {
		return "the nemesis default"
	}
	return d.String()
}
