package external

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

// ErrRefused marks what the user must fix before a run can start (a name
// that does not match, a stream that already exists, a missing
// permission): a usage error, not a harness failure.
var ErrRefused = errors.New("refused")

func refuse(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrRefused}, args...)...)
}

// Options is everything --runtime external is given.
type Options struct {
	Servers   []string // client URLs, one per node, in node order
	Monitors  []string // monitoring URLs, in the same order
	NodeNames []string // optional: the server_name each URL must report
	Auth      Auth
	Hooks     Hooks
	// Streams are the streams the run may create: the only ones it touches.
	// Start refuses when one exists already; Close deletes them.
	Streams []Stream

	ConnectTimeout time.Duration // servers answer, cluster ready; default 30s
	ProbeTimeout   time.Duration // one monitoring request in State; default 2s
	HookTimeout    time.Duration // one hook command; default 2m
}

// Auth is how clients authenticate. At most one of Creds, NKey and User;
// TLS combines with any.
type Auth struct {
	Creds, NKey    string // files: a .creds file, an nkey seed file
	User, Password string
	TLSCA          string // file: CA bundle that signed the servers' certificates
	TLSCert        string // file: client certificate (needs TLSKey)
	TLSKey         string
}

// Stream is one stream the run creates.
type Stream struct {
	Name     string // e.g. KV_chaos_1a2b3c
	Filter   string // its subjects, e.g. $KV.chaos_1a2b3c.>
	Subject  string // one subject under Filter, for the permission probe
	Replicas int
	// DirectGet: the run reads it through Direct Get and turns that off
	// by a stream update; Acks: it reads it through a durable pull
	// consumer and acknowledges; AtomicPublish: it publishes atomic
	// batches (AllowAtomicPublish); Counters: it is a counter stream
	// (AllowMsgCounter), written with Nats-Incr. The preflight probes
	// only what the run will do.
	DirectGet, Acks         bool
	AtomicPublish, Counters bool
}

// ProbeName is the stream the preflight creates and deletes to probe the
// account's grants: the run's name plus "_preflight", with the run's
// subjects. Not the run's own name: nats-server can create a file stream
// that still holds a just-deleted stream's messages under the same name
// (repro/streamrecreate), and the workload's new stream would then start
// with the probe's message, an anomaly the run did not cause. NATS grants
// match whole tokens, so a grant that lets the run create its stream
// ($JS.API.STREAM.CREATE.*) lets it create this one.
func (s Stream) ProbeName() string { return s.Name + "_preflight" }

// Defaults of the timeouts.
const (
	DefaultConnectTimeout = 30 * time.Second
	DefaultProbeTimeout   = 2 * time.Second
	DefaultHookTimeout    = 2 * time.Minute
)

func (o Options) withDefaults() Options {
	if o.ConnectTimeout == 0 {
		o.ConnectTimeout = DefaultConnectTimeout
	}
	if o.ProbeTimeout == 0 {
		o.ProbeTimeout = DefaultProbeTimeout
	}
	if o.HookTimeout == 0 {
		o.HookTimeout = DefaultHookTimeout
	}
	return o
}

// safeName is what a server name may hold: it is pasted into shell
// commands unquoted, and pod and container names fit it.
var safeName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// Validate reports the first bad option in one line, flag names included.
func (o Options) Validate() error {
	switch {
	case len(o.Servers) == 0:
		return errors.New("--runtime external needs --server, one client URL per node (nats://host:4222,...)")
	case len(o.Servers) > 9:
		return fmt.Errorf("--server lists %d servers; at most 9", len(o.Servers))
	case len(o.Monitors) != len(o.Servers):
		return fmt.Errorf("--monitor lists %d URLs for %d --server URLs: give each node's monitoring URL (http://host:8222), in the same order", len(o.Monitors), len(o.Servers))
	case len(o.NodeNames) > 0 && len(o.NodeNames) != len(o.Servers):
		return fmt.Errorf("--node-names lists %d names for %d --server URLs", len(o.NodeNames), len(o.Servers))
	case o.ConnectTimeout < 0 || o.ProbeTimeout < 0 || o.HookTimeout < 0:
		return errors.New("--connect-timeout, --probe-timeout and --hook-timeout must be positive")
	}
	seen := map[string]bool{}
	for i, s := range o.Servers {
		if err := checkURL("--server", s, "nats", "tls"); err != nil {
			return err
		}
		if err := checkURL("--monitor", o.Monitors[i], "http"); err != nil {
			return err
		}
		if seen[s] {
			return fmt.Errorf("--server %s is listed twice", s)
		}
		seen[s] = true
	}
	names := map[string]bool{}
	for _, n := range o.NodeNames {
		if !safeName.MatchString(n) {
			return fmt.Errorf("--node-names %q: a server name of letters, digits, '.', '_' and '-'", n)
		}
		if names[n] {
			return fmt.Errorf("--node-names lists %s twice", n)
		}
		names[n] = true
	}
	if err := o.Auth.validate(); err != nil {
		return err
	}
	for _, s := range o.Streams {
		if s.Name == "" || s.Filter == "" || s.Subject == "" || s.Replicas < 1 {
			return fmt.Errorf("stream %+v: name, filter, subject and replicas are all needed", s)
		}
	}
	return nil
}

// checkURL accepts one URL of the given schemes with a host and a port.
func checkURL(flag, raw string, schemes ...string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return fmt.Errorf("%s %q: want %s://host:port", flag, raw, schemes[0])
	}
	ok := false
	for _, s := range schemes {
		ok = ok || u.Scheme == s
	}
	switch {
	case !ok && flag == "--monitor" && u.Scheme == "https":
		return fmt.Errorf("--monitor %s: the fault checks read monitoring endpoints over plain http only", raw)
	case !ok:
		return fmt.Errorf("%s %s: want a %s:// URL", flag, raw, strings.Join(schemes, ":// or "))
	case u.Port() == "":
		return fmt.Errorf("%s %s: give the port (e.g. :4222 or :8222)", flag, raw)
	case u.User != nil:
		return fmt.Errorf("%s %s: put credentials in --user/--password or --creds, not in the URL (URLs are saved with the run)", flag, raw)
	}
	return nil
}

func (a Auth) validate() error {
	n := 0
	for _, s := range []string{a.Creds, a.NKey, a.User} {
		if s != "" {
			n++
		}
	}
	switch {
	case n > 1:
		return errors.New("--creds, --nkey and --user exclude each other: give one")
	case a.Password != "" && a.User == "":
		return errors.New("--password needs --user")
	case (a.TLSCert == "") != (a.TLSKey == ""):
		return errors.New("--tls-cert and --tls-key go together")
	}
	for flag, f := range map[string]string{"--creds": a.Creds, "--nkey": a.NKey, "--tls-ca": a.TLSCA, "--tls-cert": a.TLSCert, "--tls-key": a.TLSKey} {
		if f == "" {
			continue
		}
		if _, err := os.ReadFile(f); err != nil {
			return fmt.Errorf("%s %s: %v", flag, f, errors.Unwrap(err))
		}
	}
	return nil
}

// dial builds the client options and their description without secrets.
func (a Auth) dial() (*cluster.Dial, error) {
	var opts []nats.Option
	var desc []string
	switch {
	case a.Creds != "":
		opts, desc = append(opts, nats.UserCredentials(a.Creds)), append(desc, "creds "+a.Creds)
	case a.NKey != "":
		o, err := nats.NkeyOptionFromSeed(a.NKey)
		if err != nil {
			return nil, fmt.Errorf("--nkey %s: %v", a.NKey, err)
		}
		opts, desc = append(opts, o), append(desc, "nkey "+a.NKey)
	case a.User != "":
		opts, desc = append(opts, nats.UserInfo(a.User, a.Password)), append(desc, "user "+a.User)
	}
	if a.TLSCA != "" {
		opts, desc = append(opts, nats.RootCAs(a.TLSCA)), append(desc, "TLS CA "+a.TLSCA)
	}
	if a.TLSCert != "" {
		opts, desc = append(opts, nats.ClientCert(a.TLSCert, a.TLSKey)), append(desc, "TLS client cert "+a.TLSCert)
	}
	if len(desc) == 0 {
		return cluster.NewDial("none"), nil
	}
	return cluster.NewDial(strings.Join(desc, ", "), opts...), nil
}

// NotLoopback lists the hosts of the server and monitor URLs that are not
// on this machine: an address that is not loopback, or any name other than
// localhost (names are not resolved: a run must not touch a remote server
// by accident). Such a run needs --yes or an answer at the prompt.
func NotLoopback(o Options) []string {
	var out []string
	seen := map[string]bool{}
	for _, raw := range append(append([]string(nil), o.Servers...), o.Monitors...) {
		u, err := url.Parse(raw)
		if err != nil {
			continue
		}
		h := u.Hostname()
		if isLoopback(h) || seen[h] {
			continue
		}
		seen[h] = true
		out = append(out, h)
	}
	return out
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
