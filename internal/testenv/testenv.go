// Package testenv gates the tests that need something outside the test
// process: a cluster of nats-server processes, a Docker engine, a FUSE
// mount, headless Chromium or the Go module proxy. Every such test calls
// Require at its top with what it needs, and the gate applies one rule:
//
//   - The test's name contains Pattern ("Integration"), or it fails, in
//     every mode: `go test -run Integration ./...` (make integration)
//     selects the integration suite by that name alone, so a gated test
//     cannot fall out of it. Only the top-level name counts, as -run
//     matches it; benchmarks, which -bench selects, are exempt.
//   - With -short (make unit) it skips: the unit suite needs none of these.
//   - When a need is not met, it fails under CI=true, naming what is
//     missing and how to get it; elsewhere it skips with that reason.
//     CI is read as a boolean (true, 1, false, 0...); any other value
//     fails the test, so a typo cannot turn failures into skips.
//
// The probes come from the packages that own them (docker.Available,
// lazyfs.Available, serverbin.Path...): this package imports none of
// them, so their own tests can use it without an import cycle.
package testenv

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/module"
)

// Pattern is the word every gated test's name contains, and the -run
// pattern of make integration.
const Pattern = "Integration"

// A Need is one thing outside the test process that a test needs. Make it
// with Docker, Processes, FUSE, Chromium or ModuleProxy.
type Need struct {
	what  string       // what is missing, e.g. "a Docker engine"
	howTo string       // how to get it
	probe func() error // nil when the need is met, else why not
}

// Docker is a Docker engine that answers; available is
// cluster/docker.Available.
func Docker(available func(context.Context) error) Need {
	n := Need{what: "a Docker engine",
		howTo: "start the Docker daemon so that `docker info` answers, or point DOCKER_HOST at one"}
	if available != nil {
		n.probe = func() error { return available(context.Background()) }
	}
	return n
}

// Processes is what a cluster of nats-server processes needs: the server
// binary of the default version. binary is cluster/serverbin.Path, which
// builds it on first use.
func Processes(binary func(ctx context.Context, version string) (string, error)) Need {
	n := Need{what: "a nats-server binary to run as processes",
		howTo: "let `go install github.com/nats-io/nats-server/v2` reach the Go module proxy once (the binary is cached under $JSCHAOS_CACHE, default ~/.cache/jetstream-chaos), or put one at $JSCHAOS_CACHE/nats-server/<version>/nats-server"}
	if binary != nil {
		n.probe = func() error {
			_, err := binary(context.Background(), "")
			return err
		}
	}
	return n
}

// FUSE is a FUSE mount that node containers can use; available is
// cluster/lazyfs.Available, or a check that includes it.
func FUSE(available func() error) Need {
	return Need{what: "a FUSE mount", probe: available,
		howTo: "give the test read-write /dev/fuse and, unless it runs as root, user_allow_other in /etc/fuse.conf (a container needs --device /dev/fuse --cap-add SYS_ADMIN)"}
}

// Chromium is a headless Chromium to drive; find says why none was found
// (reports/reportstest looks for it).
func Chromium(find func() error) Need {
	return Need{what: "headless Chromium", probe: find,
		howTo: "install Debian's package (`apt-get install -y chromium`; .ci/run does), or set $CHROMIUM to a Chromium or Chrome binary"}
}

// ModuleProxy is the Go module proxy that `go env GOPROXY` names first,
// answering for mod (a module path such as
// github.com/nats-io/nats-server/v2).
func ModuleProxy(mod string) Need {
	return Need{what: "the Go module proxy", probe: func() error { return proxyServes(mod) },
		howTo: "let the first entry of `go env GOPROXY` be a proxy this machine reaches (the default is https://proxy.golang.org)"}
}

// proxyTimeout bounds the question to the proxy.
const proxyTimeout = 15 * time.Second

// proxyServes asks the first GOPROXY entry for mod's version list.
func proxyServes(mod string) error {
	ctx, cancel := context.WithTimeout(context.Background(), proxyTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, "go", "env", "GOPROXY").Output()
	if err != nil {
		return fmt.Errorf("go env GOPROXY: %v", err)
	}
	list := strings.TrimSpace(string(out))
	first, _, _ := strings.Cut(strings.ReplaceAll(list, "|", ","), ",")
	switch first {
	case "", "off":
		return fmt.Errorf("GOPROXY=%q allows no module download", list)
	case "direct":
		return fmt.Errorf("GOPROXY=%q asks version control first, not a proxy", list)
	}
	esc, err := module.EscapePath(mod)
	if err != nil {
		return err
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.RegisterProtocol("file", http.NewFileTransport(http.Dir("/"))) // GOPROXY=file:///dir
	u := strings.TrimSuffix(first, "/") + "/" + esc + "/@v/list"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return fmt.Errorf("GOPROXY entry %q: %v", first, err)
	}
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		return fmt.Errorf("GET %s: %v", u, err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	return nil
}

// Require applies the package's rule to t for needs: it fails t when the
// name lacks Pattern, skips it under -short, and otherwise probes each
// need and skips t (fails it under CI=true) saying what is missing.
func Require(t testing.TB, needs ...Need) {
	t.Helper()
	require(t, env{short: testing.Short(), ci: os.Getenv("CI")}, needs)
}

// env is what Require reads from the process, given to require so that
// its tests can set it.
type env struct {
	short bool
	ci    string // $CI
}

func require(t testing.TB, e env, needs []Need) {
	t.Helper()
	if len(needs) == 0 {
		t.Fatal("testenv.Require: no need given")
	}
	var whats []string
	for _, n := range needs {
		if n.probe == nil {
			t.Fatalf("testenv.Require: need %q has no probe (made without its constructor, or given nil)", n.what)
		}
		whats = append(whats, n.what)
	}
	what := strings.Join(whats, " and ")
	if name := topLevel(t.Name()); !strings.HasPrefix(name, "Benchmark") && !strings.Contains(name, Pattern) {
		t.Fatalf("%s needs %s, so its name must contain %q: make integration (go test -run %s) selects the integration suite by name; rename the test",
			name, what, Pattern, Pattern)
	}
	ci, err := parseCI(e.ci)
	if err != nil {
		t.Fatal(err)
	}
	if e.short {
		t.Skipf("needs %s: skipped with -short (make integration runs it)", what)
	}
	var missing []string
	for _, n := range needs {
		if err := n.probe(); err != nil {
			missing = append(missing, fmt.Sprintf("%s (%v); to get it: %s", n.what, err, n.howTo))
		}
	}
	if len(missing) == 0 {
		return
	}
	msg := "needs " + strings.Join(missing, "; and needs ")
	if ci {
		t.Fatalf("%s [CI=true: a missing need fails the test]", msg)
	}
	t.Skipf("%s [skipped; under CI=true it fails]", msg)
}

// topLevel is the name -run matches first: a subtest's name up to its
// first slash.
func topLevel(name string) string {
	top, _, _ := strings.Cut(name, "/")
	return top
}

// parseCI reads $CI: unset or empty is false.
func parseCI(v string) (bool, error) {
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("CI=%q is not a boolean: set it to true or false", v)
	}
	return b, nil
}
