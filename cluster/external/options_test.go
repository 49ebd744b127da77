package external

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

func three() Options {
	return Options{
		Servers:  []string{"nats://127.0.0.1:4222", "nats://127.0.0.1:4223", "nats://127.0.0.1:4224"},
		Monitors: []string{"http://127.0.0.1:8222", "http://127.0.0.1:8223", "http://127.0.0.1:8224"},
	}
}

func TestValidateNamesTheBadFlag(t *testing.T) {
	creds := filepath.Join(t.TempDir(), "u.creds")
	if err := os.WriteFile(creds, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		mod  func(*Options)
		want string
	}{
		{"no servers", func(o *Options) { o.Servers, o.Monitors = nil, nil }, "--runtime external needs --server"},
		{"monitors missing", func(o *Options) { o.Monitors = o.Monitors[:2] }, "--monitor lists 2 URLs for 3 --server URLs"},
		{"names missing", func(o *Options) { o.NodeNames = []string{"a"} }, "--node-names lists 1 names for 3"},
		{"unsafe name", func(o *Options) { o.NodeNames = []string{"a", "b;rm", "c"} }, `--node-names "b;rm"`},
		{"name twice", func(o *Options) { o.NodeNames = []string{"a", "b", "a"} }, "--node-names lists a twice"},
		{"server scheme", func(o *Options) { o.Servers[1] = "http://127.0.0.1:4223" }, "want a nats:// or tls:// URL"},
		{"server port", func(o *Options) { o.Servers[1] = "nats://127.0.0.1" }, "give the port"},
		{"server twice", func(o *Options) { o.Servers[1] = o.Servers[0] }, "is listed twice"},
		{"user in URL", func(o *Options) { o.Servers[0] = "nats://u:p@127.0.0.1:4222" }, "put credentials in --user/--password or --creds"},
		{"https monitor", func(o *Options) { o.Monitors[2] = "https://127.0.0.1:8224" }, "plain http only"},
		{"not a URL", func(o *Options) { o.Monitors[2] = "8224" }, `--monitor "8224": want http://host:port`},
		{"two auths", func(o *Options) { o.Auth = Auth{Creds: creds, User: "u"} }, "--creds, --nkey and --user exclude each other"},
		{"password alone", func(o *Options) { o.Auth = Auth{Password: "p"} }, "--password needs --user"},
		{"cert alone", func(o *Options) { o.Auth = Auth{TLSCert: creds} }, "--tls-cert and --tls-key go together"},
		{"missing file", func(o *Options) { o.Auth = Auth{Creds: "/nonexistent.creds"} }, "--creds /nonexistent.creds: no such file or directory"},
		{"negative timeout", func(o *Options) { o.HookTimeout = -1 }, "must be positive"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := three()
			c.mod(&o)
			err := o.Validate()
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("Validate() = %v, want one line containing %q", err, c.want)
			}
		})
	}
	o := three()
	o.Auth = Auth{Creds: creds, TLSCA: creds}
	if err := o.Validate(); err != nil {
		t.Errorf("good options: %v", err)
	}
}

func TestNotLoopbackNeverResolvesNames(t *testing.T) {
	cases := []struct {
		servers, monitors []string
		want              []string
	}{
		{[]string{"nats://127.0.0.1:4222", "nats://[::1]:4222"}, []string{"http://localhost:8222", "http://127.0.0.2:8222"}, nil},
		{[]string{"nats://10.0.0.5:4222"}, []string{"http://10.0.0.5:8222"}, []string{"10.0.0.5"}},
		{[]string{"nats://127.0.0.1:4222"}, []string{"http://nats-0.nats-headless:8222"}, []string{"nats-0.nats-headless"}},
		// a name that might resolve to loopback still counts as remote
		{[]string{"nats://myhost:4222"}, []string{"http://127.0.0.1:8222"}, []string{"myhost"}},
	}
	for _, c := range cases {
		got := NotLoopback(Options{Servers: c.servers, Monitors: c.monitors})
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("NotLoopback(%v, %v) = %v, want %v", c.servers, c.monitors, got, c.want)
		}
	}
}

func TestSupportsIsNilExactlyWhenTheHooksWereGiven(t *testing.T) {
	cases := []struct {
		hooks []string
		c     cluster.Capability
		want  string // "" = supported
	}{
		{nil, cluster.CapKill, "no --fault-hook kill given"},
		{[]string{"kill=k {node}"}, cluster.CapKill, "no --fault-hook start given (the heal of --fault-hook kill runs it)"},
		{[]string{"kill=k {node}", "start=s {node}"}, cluster.CapKill, ""},
		{[]string{"kill=k {node}", "start=s {node}"}, cluster.CapStop, "no --fault-hook stop given"},
		{[]string{"stop=k {node}", "start=s {node}"}, cluster.CapStop, ""},
		{[]string{"pause=p {node}"}, cluster.CapPause, "no --fault-hook resume given"},
		{[]string{"pause=p {node}", "resume=r {node}"}, cluster.CapPause, ""},
		{[]string{"wipe=w {node}"}, cluster.CapWipe, ""},
		{[]string{"partition=p {nodes}"}, cluster.CapPartition, "no --fault-hook heal given"},
		{[]string{"partition=p {nodes}", "heal=h"}, cluster.CapPartition, ""},
		{[]string{"kill=k {node}", "start=s {node}"}, cluster.CapMemoryLimit, "not the run's to change"},
		{nil, cluster.CapLatency, "no hook for network shaping"},
	}
	for _, c := range cases {
		h, err := ParseHooks(c.hooks)
		if err != nil {
			t.Fatal(err)
		}
		o := three()
		o.Hooks = h
		rt, err := New(o)
		if err != nil {
			t.Fatal(err)
		}
		err = rt.Supports(c.c)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%v %s: %v", c.hooks, c.c, err)
		case c.want != "" && (err == nil || !errors.Is(err, cluster.ErrUnsupported) || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%v %s: %v, want unsupported: %q", c.hooks, c.c, err, c.want)
		}
	}
}
