package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/cluster/external"
	"github.com/jetstream-chaos/jetstream-chaos/record"
	"github.com/jetstream-chaos/jetstream-chaos/run"
	"github.com/jetstream-chaos/jetstream-chaos/workloads"
)

// externalFlags are the flags of --runtime external: the cluster, how to
// authenticate, the fault hooks, the guard and the timeouts.
type externalFlags struct {
	servers, monitors, nodeNames []string
	auth                         external.Auth
	hooks                        []string
	yes                          bool
	namePrefix                   string
	connectTimeout, hookTimeout  time.Duration
}

// externalOnly are the flags that mean nothing to another runtime.
var externalOnly = []string{"server", "monitor", "node-names", "creds", "nkey", "user", "password", "tls-ca", "tls-cert", "tls-key",
	"fault-hook", "yes", "name-prefix", "connect-timeout", "hook-timeout"}

func bindExternal(fl *pflag.FlagSet) *externalFlags {
	e := &externalFlags{}
	fl.StringSliceVar(&e.servers, "server", nil, "external: client URLs of the cluster's servers, one per node (nats://a:4222,nats://b:4222,...)")
	fl.StringSliceVar(&e.monitors, "monitor", nil, "external: monitoring URLs, in --server order (http://a:8222,...); the fault checks read them")
	fl.StringSliceVar(&e.nodeNames, "node-names", nil, "external: the server name each --server URL must report (checked against /varz)")
	fl.StringVar(&e.auth.Creds, "creds", "", "external: user credentials file (.creds)")
	fl.StringVar(&e.auth.NKey, "nkey", "", "external: nkey seed file")
	fl.StringVar(&e.auth.User, "user", "", "external: user name")
	fl.StringVar(&e.auth.Password, "password", "", "external: password for --user (never saved; $NATS_PASSWORD when not given)")
	fl.StringVar(&e.auth.TLSCA, "tls-ca", "", "external: CA certificates that signed the servers' certificates")
	fl.StringVar(&e.auth.TLSCert, "tls-cert", "", "external: client certificate (with --tls-key)")
	fl.StringVar(&e.auth.TLSKey, "tls-key", "", "external: client key")
	fl.StringArrayVar(&e.hooks, "fault-hook", nil, "external: NAME=COMMAND, the shell command that does a control on your cluster; NAME is "+
		strings.Join(external.Controls, ", ")+"; {node} {index} {nodes} {others} {groups} are filled in (repeatable; see README)")
	fl.BoolVar(&e.yes, "yes", false, "external: run against servers that are not on this machine without asking")
	fl.StringVar(&e.namePrefix, "name-prefix", "chaos", "external: prefix of the name of what the run creates (<prefix>_<random>: the bucket or stream)")
	fl.DurationVar(&e.connectTimeout, "connect-timeout", external.DefaultConnectTimeout, "external: how long the servers have to answer and the cluster to be ready, per cell")
	fl.DurationVar(&e.hookTimeout, "hook-timeout", external.DefaultHookTimeout, "external: how long one --fault-hook command may run")
	return e
}

// shape fits the spec to an external cluster before it is validated: as
// many nodes as --server URLs, and no server version to build.
func (e *externalFlags) shape(s *record.Spec, changed func(string) bool) error {
	if changed("server-version") {
		return errors.New("--server-version does not apply to --runtime external: the servers run what they run, and the run records their versions")
	}
	if len(e.servers) == 0 {
		return errors.New("--runtime external needs --server, one client URL per node (nats://host:4222,...), and --monitor")
	}
	for _, n := range []string{"route-ping-interval", "sync-interval", "keep-data"} {
		if changed(n) {
			return fmt.Errorf("--%s does not apply to --runtime external: it configures servers the run starts", n)
		}
	}
	if len(e.servers) == 1 {
		// nemesis.WaitRecovered waits for a meta leader, which a standalone
		// server never has: every cell would read as not recovered.
		return errors.New("--server lists one server: --runtime external tests a JetStream cluster (the recovery check waits for its meta leader)")
	}
	s.Cluster.Nodes = len(e.servers)
	s.ServerVersions = []string{""} // what the servers report, once connected
	// Marks the config as external from the start (no route ping defaults);
	// openExternal fills it with what the servers report.
	s.Cluster.External = &cluster.External{}
	s.Cluster.RoutePingInterval, s.Cluster.RoutePingMax = 0, 0
	return nil
}

var namePrefixRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$`)

// options builds the runtime's options, naming what the run creates: a
// unique name under --name-prefix, so that the run creates its own and can
// delete exactly that (nameStreams).
func (e *externalFlags) options(s *record.Spec, probeTimeout time.Duration) (external.Options, error) {
	if !namePrefixRE.MatchString(e.namePrefix) {
		return external.Options{}, fmt.Errorf("--name-prefix %q: letters, digits, '_' and '-', at most 32", e.namePrefix)
	}
	hooks, err := external.ParseHooks(e.hooks)
	if err != nil {
		return external.Options{}, err
	}
	if e.connectTimeout <= 0 || e.hookTimeout <= 0 {
		return external.Options{}, errors.New("--connect-timeout and --hook-timeout must be positive")
	}
	auth := e.auth
	if auth.User != "" && auth.Password == "" {
		auth.Password = os.Getenv("NATS_PASSWORD")
	}
	streams, err := nameStreams(s, e.namePrefix+"_"+randomHex(3))
	if err != nil {
		return external.Options{}, err
	}
	return external.Options{Servers: e.servers, Monitors: e.monitors, NodeNames: e.nodeNames, Auth: auth, Hooks: hooks,
		Streams: streams, ConnectTimeout: e.connectTimeout, ProbeTimeout: probeTimeout, HookTimeout: e.hookTimeout}, nil
}

// nameStreams names what every cell creates under the run's unique name
// (Settings.Named) and lists the streams the run will create, each once
// with the most replicas a cell asks (the preflight probes the account's
// permissions on them).
func nameStreams(s *record.Spec, name string) ([]external.Stream, error) {
	w, err := workloads.Get(s.Workload)
	if err != nil {
		return nil, err
	}
	var out []external.Stream
	at := map[string]int{}
	var settings []workloads.Settings
	for _, raw := range s.Settings {
		x, err := w.Decode(raw)
		if err != nil {
			return nil, err
		}
		x = x.Named(name)
		settings = append(settings, x)
		plan := x.Plan(s.Cluster)
		if len(plan.Streams) == 0 {
			return nil, fmt.Errorf("--runtime external: --workload %s names no stream it creates, so the run could not keep to its own", s.Workload)
		}
		for _, st := range plan.Streams {
			if !strings.Contains(st.Name, name) {
				return nil, fmt.Errorf("--runtime external: --workload %s creates stream %s, not named under the run's name %s, so the run could not keep to its own", s.Workload, st.Name, name)
			}
			es := external.Stream{Name: st.Name, Filter: st.Filter, Subject: st.Subject, Replicas: st.Replicas,
				DirectGet: plan.ReadsDirectGet, Acks: st.Acks, AtomicPublish: st.AtomicPublish, Counters: st.Counters}
			if i, ok := at[st.Name]; !ok {
				at[st.Name] = len(out)
				out = append(out, es)
			} else { // what any cell does to it
				out[i].Replicas = max(out[i].Replicas, es.Replicas)
				out[i].DirectGet = out[i].DirectGet || es.DirectGet
				out[i].Acks = out[i].Acks || es.Acks
				out[i].AtomicPublish = out[i].AtomicPublish || es.AtomicPublish
				out[i].Counters = out[i].Counters || es.Counters
			}
		}
	}
	return out, run.SetSettings(s, settings)
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// openExternal turns the flags into a runtime, refusing before any
// connection what cannot run (a fault without its hook, a remote server
// without --yes), then connects: the servers, their names and versions,
// the account's permissions on the run's stream. It fills in the spec
// what the servers reported.
func (f *runFlags) openExternal(ctx context.Context, spec *record.Spec, out io.Writer) (*external.Runtime, error) {
	o, err := f.ext.options(spec, spec.Cluster.ProbeTimeout)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	rt, err := external.New(o)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	if err := run.Refuse(*spec, rt); err != nil {
		return nil, usageErr("%v", err)
	}
	if err := confirmRemote(o, f.ext.yes, stdinIsTerminal(), os.Stdin, os.Stderr); err != nil {
		return nil, usageErr("%v", err)
	}
	ext, err := rt.Survey(ctx)
	if err != nil {
		return nil, externalErr(err)
	}
	versions := map[string]string{}
	for _, s := range ext.Servers {
		versions[s.Name] = s.Version
	}
	if err := run.RefuseOlderServers(*spec, versions); err != nil {
		return nil, usageErr("%v", err)
	}
	if err := rt.Preflight(ctx, needsStepdown(spec.Nemeses)); err != nil {
		return nil, externalErr(err)
	}
	spec.ServerVersions = []string{versionLabel(ext)}
	spec.Cluster.External = ext
	fmt.Fprintf(out, "runtime: external (%d servers the toolkit did not start; it never stops them)\n", len(ext.Servers))
	for _, s := range ext.Servers {
		fmt.Fprintf(out, "  %s  %s  nats-server %s  config digest %s\n", s.Name, s.ClientURL, s.Version, orNone(s.ConfigDigest))
	}
	fmt.Fprintf(out, "  the run creates stream %s and deletes it after each cell; it touches no other stream\n", strings.Join(ext.Streams, ", "))
	return rt, nil
}

func externalErr(err error) error {
	if errors.Is(err, external.ErrRefused) {
		return usageErr("%v", err)
	}
	return harnessErr(err)
}

func orNone(s string) string {
	if s == "" {
		return "(none reported)"
	}
	return s
}

func needsStepdown(nemeses []string) bool {
	for _, n := range nemeses {
		for _, f := range strings.FieldsFunc(n, func(r rune) bool { return r == ',' || r == '+' }) {
			if strings.TrimSpace(f) == "stepdown" {
				return true
			}
		}
	}
	return false
}

// versionLabel is the cells' server version: the one the servers report,
// or every distinct one joined when they differ (a cluster mid-upgrade).
func versionLabel(ext *cluster.External) string {
	vs := ext.Versions()
	for i, v := range vs {
		vs[i] = "v" + strings.TrimPrefix(regexp.MustCompile(`[^0-9A-Za-z.-]`).ReplaceAllString(v, "-"), "v")
	}
	return strings.Join(vs, "-and-")
}

// confirmRemote lets a run touch servers that are not on this machine only
// with --yes, or when a person at a terminal says yes to a prompt that
// names them.
func confirmRemote(o external.Options, yes, terminal bool, in io.Reader, prompt io.Writer) error {
	hosts := external.NotLoopback(o)
	if len(hosts) == 0 || yes {
		return nil
	}
	if !terminal {
		return fmt.Errorf("%s not on this machine: pass --yes to run against %s (there is no terminal to ask)",
			plural(hosts, "is", "are"), strings.Join(o.Servers, ","))
	}
	fmt.Fprintf(prompt, "chaos will create a stream on, and inject the faults asked for into, servers not on this machine:\n  %s\nGo on? [y/N] ",
		strings.Join(o.Servers, "\n  "))
	line, _ := bufio.NewReader(in).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return nil
	}
	return errors.New("not confirmed: nothing was started")
}

func plural(hosts []string, one, many string) string {
	if len(hosts) == 1 {
		return hosts[0] + " " + one
	}
	return strings.Join(hosts, ", ") + " " + many
}

func stdinIsTerminal() bool { return term.IsTerminal(int(os.Stdin.Fd())) }

// cleanupExternal deletes whatever of the run's streams is left.
func cleanupExternal(rt *external.Runtime, out io.Writer) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := rt.Cleanup(ctx); err != nil {
		fmt.Fprintf(out, "cleanup: %v\n", err)
	}
}
