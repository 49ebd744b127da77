package findings

import (
	"fmt"
	"sort"
	"strings"
)

// writeEnvironment lists versions, the runtime, the workload and the
// nodes' configuration.
func (c *cell) writeEnvironment(b *strings.Builder, e env) {
	b.WriteString("### Versions and configuration\n\n")
	fmt.Fprintf(b, "- nats-server: %s\n", c.serverLine(e))
	client, src := c.run.ClientVersion, ""
	if client == "" {
		client = e.clientVersion
		if !e.clientIsRun {
			src = " (of the chaos binary that wrote this file: the run did not record it)"
		}
	}
	fmt.Fprintf(b, "- nats.go: %s%s, github.com/nats-io/nats.go/jetstream\n", orUnknown(client), src)
	if c.run.GoVersion != "" {
		fmt.Fprintf(b, "- Go (clients): %s\n", c.run.GoVersion)
	} else if e.goVersion != "" {
		fmt.Fprintf(b, "- Go (clients): %s (of the chaos binary that wrote this file)\n", e.goVersion)
	}
	fmt.Fprintf(b, "- Cluster: %s\n", c.runtimeLine())
	if w := c.workloadLine(); w != "" {
		fmt.Fprintf(b, "- Workload: %s\n", w)
	}
	b.WriteString("\n")
	c.writeConfigs(b)
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// serverLine is the version the cell asked for, checked against what each
// node's log banner says.
func (c *cell) serverLine(e env) string {
	v := c.res.ServerVersion
	if v == "" {
		v = c.res.Cluster.ServerVersion
	}
	s := orUnknown(v)
	if v != "" {
		s += fmt.Sprintf(", built from source with `CGO_ENABLED=0 go install github.com/nats-io/nats-server/v2@%s`", v)
		if g := e.serverGo(v); g != "" {
			s += " (" + g + ")"
		}
	}
	banner := map[string][]string{}
	for _, n := range c.nodes {
		if bv, l := serverVersion(c.logs[n]); bv != "" {
			c.markLines(n, []logLine{l})
			banner[bv] = append(banner[bv], n)
		}
	}
	var parts []string
	for bv, ns := range banner {
		parts = append(parts, fmt.Sprintf("%s on %s", bv, strings.Join(ns, ", ")))
	}
	sort.Strings(parts)
	if len(parts) > 0 {
		s += "; the log banners say Version " + strings.Join(parts, "; ")
	}
	return s
}

func (c *cell) runtimeLine() string {
	n := c.res.Cluster.Nodes
	if n == 0 {
		n = len(c.nodes)
	}
	s := fmt.Sprintf("%d nodes", n)
	switch c.res.Runtime {
	case "docker":
		s += ", one Docker container each (image FROM scratch holding the static binary), on a private Docker network"
	case "local":
		s += ", local processes on one host"
	}
	if c.res.Cluster.MemoryLimit > 0 {
		s += fmt.Sprintf(", memory limit %d MiB a node", c.res.Cluster.MemoryLimit>>20)
	}
	return s + "; stores on disk; the configuration below"
}

// writeConfigs shows one node's config in full and, for the others, how
// they differ from it (usually only server_name).
func (c *cell) writeConfigs(b *strings.Builder) {
	var names []string
	for n := range c.configs {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(names) == 0 {
		return
	}
	first := names[0]
	fmt.Fprintf(b, "%s's nats-server configuration:\n\n```\n%s\n```\n\n", first, strings.TrimRight(c.configs[first], "\n"))
	var same, differ []string
	for _, n := range names[1:] {
		if onlyNameDiffers(c.configs[first], c.configs[n]) {
			same = append(same, n)
		} else {
			differ = append(differ, n)
		}
	}
	if len(same) > 0 {
		fmt.Fprintf(b, "%s: the same, with their own server_name.\n\n", strings.Join(same, ", "))
	}
	for _, n := range differ {
		fmt.Fprintf(b, "%s:\n\n```\n%s\n```\n\n", n, strings.TrimRight(c.configs[n], "\n"))
	}
}

func onlyNameDiffers(a, b string) bool {
	strip := func(s string) string {
		var out []string
		for _, l := range strings.Split(s, "\n") {
			if !strings.HasPrefix(strings.TrimSpace(l), "server_name:") {
				out = append(out, l)
			}
		}
		return strings.Join(out, "\n")
	}
	return strip(a) == strip(b)
}

// writeReproduce gives the command that reruns the cell and how to do it
// by hand.
func (c *cell) writeReproduce(b *strings.Builder, s section) {
	b.WriteString("### Reproduce\n\n")
	if c.run.Command != "" {
		fmt.Fprintf(b, "With jetstream-chaos (`github.com/jetstream-chaos/jetstream-chaos`; needs Go and Docker, and builds nats-server itself), from its checkout, where `chaos` is `go run ./cmd/chaos`:\n\n```sh\n%s\n```\n\n", c.run.Command)
		fmt.Fprintf(b, "This reruns the whole run (this finding is its cell `%s`) with the same seed, so the same fault schedule; the timing is not the same, so an intermittent anomaly may take more than one run.\n\n", c.res.Name)
		if test := GoTest(s.f.Class, c.run.Command); test != "" {
			fmt.Fprintf(b, "As a go test that fails while it shows (package `github.com/jetstream-chaos/jetstream-chaos/chaostest`; `CHAOS_ARGS=\"--server-source DIR\"` runs it on your own nats-server checkout):\n\n```go\n%s```\n\n", test)
		}
	} else {
		b.WriteString("The run's command was not recorded (no run.json next to the cell).\n\n")
	}
	if s.byHand != "" {
		fmt.Fprintf(b, "Without it: %s\n", s.byHand)
	}
}
