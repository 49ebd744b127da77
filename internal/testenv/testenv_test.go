package testenv

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// fakeTB records what the gate did to a test. Skip and Fatal end the
// calling goroutine, as testing.T's do, so code after them never runs.
type fakeTB struct {
	testing.TB // nil: a method the gate should not call panics
	name       string
	skipped    bool
	failed     bool
	msg        string
	panicked   any // what the gate panicked with, caught so the test can report it
}

func (f *fakeTB) Helper()      {}
func (f *fakeTB) Name() string { return f.name }
func (f *fakeTB) Skip(args ...any) {
	f.skipped, f.msg = true, fmt.Sprint(args...)
	runtime.Goexit()
}
func (f *fakeTB) Skipf(format string, args ...any) { f.Skip(fmt.Sprintf(format, args...)) }
func (f *fakeTB) Fatal(args ...any) {
	f.failed, f.msg = true, fmt.Sprint(args...)
	runtime.Goexit()
}
func (f *fakeTB) Fatalf(format string, args ...any) { f.Fatal(fmt.Sprintf(format, args...)) }

// gate runs require on a fake test named name, in its own goroutine so
// that Skip and Fatal can end it.
func gate(name string, e env, needs ...Need) *fakeTB {
	f := &fakeTB{name: name}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() { f.panicked = recover() }() // nil after Skip and Fatal: Goexit is no panic
		require(f, e, needs)
	}()
	<-done
	return f
}

// probed is a need whose probe counts its calls and returns err.
func probed(what string, err error, calls *int) Need {
	return Need{what: what, howTo: "get " + what, probe: func() error { *calls++; return err }}
}

func TestRequire(t *testing.T) {
	down := errors.New("it is down")
	const ok, skip, fail = "ok", "skip", "fail"
	cases := []struct {
		name   string
		test   string
		short  bool
		ci     string
		unmet  bool     // the first need's probe fails
		want   string   // ok, skip or fail
		says   []string // in the message
		probes int      // probe calls
	}{
		{"short skips", "TestIntegrationX", true, "", false, skip, []string{"needs a thing", "-short"}, 0},
		{"short skips unmet under CI", "TestIntegrationX", true, "true", true, skip, []string{"-short"}, 0},
		{"met runs", "TestIntegrationX", false, "", false, ok, nil, 1},
		{"met runs under CI", "TestIntegrationX", false, "true", false, ok, nil, 1},
		{"unmet skips", "TestIntegrationX", false, "", true, skip, []string{"a thing (it is down)", "to get it: get a thing", "under CI=true it fails"}, 1},
		{"unmet skips with CI=false", "TestIntegrationX", false, "false", true, skip, []string{"a thing (it is down)"}, 1},
		{"unmet fails under CI", "TestIntegrationX", false, "true", true, fail, []string{"a thing (it is down)", "to get it: get a thing", "CI=true"}, 1},
		{"unmet fails under CI=1", "TestIntegrationX", false, "1", true, fail, []string{"a thing (it is down)"}, 1},
		{"a CI that is no boolean fails", "TestIntegrationX", false, "yes", false, fail, []string{`CI="yes" is not a boolean`}, 0},
		{"a name without the rule fails", "TestX", false, "", false, fail, []string{"TestX needs a thing", `must contain "Integration"`, "go test -run Integration"}, 0},
		{"a name without the rule fails under -short", "TestX", true, "", false, fail, []string{`must contain "Integration"`}, 0},
		{"a subtest of a test under the rule runs", "TestIntegrationX/case", false, "", false, ok, nil, 1},
		{"only the top-level name counts", "TestX/Integration", true, "", false, fail, []string{"TestX needs"}, 0},
		{"the rule anywhere in the name", "TestExternalDockerIntegration", false, "", false, ok, nil, 1},
		{"a benchmark needs no rule", "BenchmarkX", false, "", false, ok, nil, 1},
		{"a benchmark skips with -short", "BenchmarkX/sub", true, "", false, skip, []string{"-short"}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			calls := 0
			var err error
			if c.unmet {
				err = down
			}
			f := gate(c.test, env{short: c.short, ci: c.ci}, probed("a thing", err, &calls))
			got := ok
			switch {
			case f.panicked != nil:
				t.Fatalf("the gate panicked: %v", f.panicked)
			case f.failed && f.skipped:
				t.Fatalf("both failed and skipped: %q", f.msg)
			case f.failed:
				got = fail
			case f.skipped:
				got = skip
			}
			if got != c.want {
				t.Errorf("%s (%q), want %s", got, f.msg, c.want)
			}
			for _, s := range c.says {
				if !strings.Contains(f.msg, s) {
					t.Errorf("message %q lacks %q", f.msg, s)
				}
			}
			if calls != c.probes {
				t.Errorf("%d probe calls, want %d", calls, c.probes)
			}
		})
	}
}

// Of several needs, the message names every unmet one and no met one, and
// every probe is asked.
func TestRequireNamesEachUnmetNeed(t *testing.T) {
	calls := 0
	needs := []Need{probed("Docker", nil, &calls), probed("FUSE", errors.New("no /dev/fuse"), &calls), probed("Chromium", errors.New("not found"), &calls)}
	f := gate("TestIntegrationX", env{ci: "true"}, needs...)
	if f.panicked != nil || !f.failed || calls != 3 {
		t.Fatalf("failed %v after %d probes (%q), want a failure after 3", f.failed, calls, f.msg)
	}
	for _, s := range []string{"FUSE (no /dev/fuse); to get it: get FUSE", "Chromium (not found); to get it: get Chromium"} {
		if !strings.Contains(f.msg, s) {
			t.Errorf("message %q lacks %q", f.msg, s)
		}
	}
	if strings.Contains(f.msg, "Docker") {
		t.Errorf("message %q names the met need", f.msg)
	}
}

// A need without a probe, or no need at all, is the caller's bug: it
// fails, in every mode, rather than pass or skip unchecked.
func TestRequireRefusesBadNeeds(t *testing.T) {
	cases := []struct {
		name  string
		needs []Need
		says  string
	}{
		{"no need", nil, "no need given"},
		{"zero need", []Need{{}}, "has no probe"},
		{"nil Docker probe", []Need{Docker(nil)}, `"a Docker engine" has no probe`},
		{"nil Processes probe", []Need{Processes(nil)}, "has no probe"},
		{"nil FUSE probe", []Need{FUSE(nil)}, "has no probe"},
		{"nil Chromium probe", []Need{Chromium(nil)}, "has no probe"},
	}
	for _, c := range cases {
		for _, short := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s short=%v", c.name, short), func(t *testing.T) {
				f := gate("TestIntegrationX", env{short: short}, c.needs...)
				if f.panicked != nil || !f.failed || !strings.Contains(f.msg, c.says) {
					t.Errorf("failed %v (%q), panicked %v; want a failure saying %q", f.failed, f.msg, f.panicked, c.says)
				}
			})
		}
	}
}

// The constructors ask the owners' probes as the tests need them asked.
func TestConstructorsProbe(t *testing.T) {
	down := errors.New("down")
	var version string
	cases := []struct {
		name string
		need Need
		what string
	}{
		{"Docker", Docker(func(ctx context.Context) error {
			if ctx == nil {
				return errors.New("no context")
			}
			return down
		}), "a Docker engine"},
		{"Processes", Processes(func(_ context.Context, v string) (string, error) { version = v; return "", down }), "a nats-server binary to run as processes"},
		{"FUSE", FUSE(func() error { return down }), "a FUSE mount"},
		{"Chromium", Chromium(func() error { return down }), "headless Chromium"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			version = "unset"
			f := gate("TestIntegrationX", env{}, c.need)
			if f.panicked != nil || !f.skipped || !strings.Contains(f.msg, c.what+" (down)") {
				t.Errorf("skipped %v (%q), want a skip naming %q and the probe's error", f.skipped, f.msg, c.what)
			}
			if c.name == "Processes" && version != "" {
				t.Errorf("asked for nats-server version %q, want the default (\"\")", version)
			}
		})
	}
}

// ModuleProxy asks the first GOPROXY entry for the module's version list.
func TestModuleProxy(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/github.com/!my!org/mod/@v/list" { // escaped as the go tool does
			http.NotFound(w, r)
			return
		}
		fmt.Fprintln(w, "v1.0.0")
	}))
	defer srv.Close()
	fileProxy := t.TempDir()
	if err := os.MkdirAll(filepath.Join(fileProxy, "example.com/m/@v"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(fileProxy, "example.com/m/@v/list"), []byte("v1.0.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		goproxy, mod string
		says         string // "" when served
	}{
		{srv.URL, "github.com/MyOrg/mod", ""},
		{srv.URL + "/,direct", "github.com/MyOrg/mod", ""},
		{srv.URL + "|off", "github.com/MyOrg/mod", ""},
		{srv.URL, "github.com/other/mod", "404 Not Found"},
		{"off", "github.com/MyOrg/mod", "allows no module download"},
		{"direct", "github.com/MyOrg/mod", "not a proxy"},
		{"direct," + srv.URL, "github.com/MyOrg/mod", "not a proxy"},
		{"file://" + fileProxy, "example.com/m", ""},
		{"file://" + fileProxy, "example.com/other", "404"},
	}
	for _, c := range cases {
		t.Run(c.goproxy+" "+c.mod, func(t *testing.T) {
			t.Setenv("GOPROXY", c.goproxy)
			err := ModuleProxy(c.mod).probe()
			switch {
			case c.says == "" && err != nil:
				t.Errorf("probe = %v, want served", err)
			case c.says != "" && (err == nil || !strings.Contains(err.Error(), c.says)):
				t.Errorf("probe = %v, want an error saying %q", err, c.says)
			}
		})
	}
}

// Require reads -short and $CI from the process: under -short it skips
// whatever CI says; without, it treats CI as require does.
func TestRequireReadsTheProcess(t *testing.T) {
	for _, ci := range []string{"", "true", "false"} {
		t.Run("CI="+ci, func(t *testing.T) {
			t.Setenv("CI", ci)
			calls := 0
			f := &fakeTB{name: "TestIntegrationX"}
			done := make(chan struct{})
			go func() {
				defer close(done)
				Require(f, probed("a thing", errors.New("down"), &calls))
			}()
			<-done
			want := gate(f.name, env{short: testing.Short(), ci: ci}, probed("a thing", errors.New("down"), new(int)))
			if f.skipped != want.skipped || f.failed != want.failed || f.msg != want.msg {
				t.Errorf("Require: skipped %v failed %v %q; require with this process's env: skipped %v failed %v %q",
					f.skipped, f.failed, f.msg, want.skipped, want.failed, want.msg)
			}
		})
	}
}
