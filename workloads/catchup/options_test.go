package catchup

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/internal/bytesize"
)

func TestGoMemLimitPolicy(t *testing.T) {
	for _, tc := range []struct {
		flag  string
		limit bytesize.Bytes
		want  int64
	}{
		{"auto", 0, 0},                      // no limit: unset
		{"auto", 1000 << 20, 800 << 20},     // 80 % of the limit
		{"auto", 1536 << 20, 1288490184},    // the same arithmetic as cluster.Config
		{"off", 1536 << 20, 0},              // unset even under a limit
		{"1200MiB", 1536 << 20, 1200 << 20}, // explicit
		{"1200MiB", 0, 1200 << 20},          // explicit without a limit
	} {
		var g cluster.GoMemLimit
		if err := g.Set(tc.flag); err != nil {
			t.Fatalf("Set(%q): %v", tc.flag, err)
		}
		if got := g.Bytes(int64(tc.limit)); got != tc.want {
			t.Errorf("--gomemlimit %s under %s = %d, want %d", tc.flag, tc.limit, got, tc.want)
		}
		// The policy must agree with the cluster package's, which the docker
		// runtime applies.
		cfg := Options{MemoryLimit: tc.limit, GoMemLimit: g}.ClusterConfig(cluster.Config{})
		cfg.MemoryLimit = int64(tc.limit)
		if tc.flag == "auto" && cfg.GoMemLimitFor() != tc.want {
			t.Errorf("cluster policy for %s gives %d, ours %d", tc.limit, cfg.GoMemLimitFor(), tc.want)
		}
	}
	var g cluster.GoMemLimit
	if err := g.Set("zero"); err == nil {
		t.Error("Set(zero) accepted")
	}
}

func TestValidate(t *testing.T) {
	ok := Defaults
	if err := ok.Validate(3); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	for _, tc := range []struct {
		name  string
		nodes int
		edit  func(*Options)
		flag  string // the error must name it
	}{
		{"one node", 1, func(o *Options) {}, "3 nodes"},
		{"payload zero", 3, func(o *Options) { o.Payload = 0 }, "--payload"},
		{"payload above max_payload", 3, func(o *Options) { o.Payload = 2 << 20 }, "--payload"},
		{"backlog below a payload", 3, func(o *Options) { o.Backlog = 100 }, "--backlog"},
		{"target", 3, func(o *Options) { o.Target = "random" }, "--target"},
		{"rate negative", 3, func(o *Options) { o.Rate = -1 }, "--rate"},
		{"rate below a message", 3, func(o *Options) { o.Rate = 100 }, "--rate"},
		{"down negative", 3, func(o *Options) { o.Down = -time.Second }, "--down"},
		{"write-for negative", 3, func(o *Options) { o.WriteFor = -time.Second }, "--write-for"},
		{"memory limit negative", 3, func(o *Options) { o.MemoryLimit = -1 }, "--memory-limit"},
		{"memory limit tiny", 3, func(o *Options) { o.MemoryLimit = 16 << 20 }, "--memory-limit"},
		{"gomemlimit above limit", 3, func(o *Options) { o.MemoryLimit, o.GoMemLimit = 1<<30, 2<<30 }, "--gomemlimit"},
		{"max outstanding negative", 3, func(o *Options) { o.MaxOutstandingCatchup = -1 }, "--max-outstanding-catchup"},
		{"max outstanding below a message", 3, func(o *Options) { o.MaxOutstandingCatchup = 100 }, "--max-outstanding-catchup"},
		{"catchup timeout", 3, func(o *Options) { o.CatchupTimeout = time.Millisecond }, "--catchup-timeout"},
		{"settle negative", 3, func(o *Options) { o.Settle = -1 }, "--settle"},
		{"recovery timeout", 3, func(o *Options) { o.RecoveryTimeout = time.Millisecond }, "--recovery-timeout"},
		{"verify timeout", 3, func(o *Options) { o.VerifyTimeout = time.Millisecond }, "--verify-timeout"},
		{"crash loop", 3, func(o *Options) { o.CrashLoop = -1 }, "--crash-loop"},
		{"sampling too slow", 3, func(o *Options) { o.SampleInterval = time.Second }, "--sample-interval"},
		{"publishers", 3, func(o *Options) { o.Publishers = 100 }, "--publishers"},
		{"window", 3, func(o *Options) { o.Window = -1 }, "--window"},
		{"publish timeout", 3, func(o *Options) { o.PublishTimeout = time.Millisecond }, "--publish-timeout"},
		{"read rate", 3, func(o *Options) { o.ReadRate = -1 }, "--read-rate"},
		{"stream name", 3, func(o *Options) { o.Stream = "a.b" }, "stream name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := Defaults
			tc.edit(&o)
			err := o.Validate(tc.nodes)
			if err == nil {
				t.Fatal("accepted")
			}
			if !strings.Contains(err.Error(), tc.flag) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q: want one line naming %s", err, tc.flag)
			}
		})
	}
}

func TestPresets(t *testing.T) {
	for _, name := range PresetNames() {
		o, err := Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		if o.Preset != name {
			t.Errorf("%s: Preset field %q", name, o.Preset)
		}
		if err := o.Validate(3); err != nil { // as the flags give it: no defaults filled in
			t.Errorf("preset %s does not validate: %v", name, err)
		}
	}
	// The report's scale, as measured by hand.
	seed, _ := Preset("seed-oom")
	if seed.Backlog != 6_000_000_000 || seed.Payload != 4096 || seed.Down != 5*time.Second ||
		seed.Rate != 40_000_000 || seed.WriteFor != 120*time.Second || seed.MemoryLimit != 1536<<20 || seed.Target != Follower {
		t.Errorf("seed-oom = %+v", seed)
	}
	if s, _ := Preset("seed-scale"); s.MemoryLimit != 0 || s.Backlog != seed.Backlog {
		t.Errorf("seed-scale should be seed-oom without a limit: %+v", s)
	}
	// The measured crash-loop presets: GOMEMLIMIT unset, a limit under the
	// catch-up's peak on v2.15.3 (1.74x the stream at 512 MiB, 2.3 GiB at
	// 2 GiB) and above what v2.11.8 and v2.10.7 need (209 MiB, 0.6 GiB).
	for _, tc := range []struct {
		name          string
		backlog, rate int64
		limit         int64
	}{
		{"seed-loop", 1 << 30, 5_000_000, 384 << 20},
		{"seed-loop-2gib", 2 << 30, 20_000_000, 1 << 30},
	} {
		l, _ := Preset(tc.name)
		if l.GoMemLimit != cluster.GoMemLimitOff || l.GoMemLimitBytes() != 0 || int64(l.MemoryLimit) != tc.limit ||
			int64(l.Backlog) != tc.backlog || int64(l.Rate) != tc.rate || l.CrashLoop != 3 {
			t.Errorf("%s = %+v", tc.name, l)
		}
	}
	if q, _ := Preset("quick"); q.Backlog != Defaults.Backlog {
		t.Errorf("quick is not the defaults")
	}
	_, err := Preset("nope")
	if err == nil || !strings.Contains(err.Error(), "--preset") || !strings.Contains(err.Error(), "seed-oom") {
		t.Errorf("Preset(nope) = %v, want an error naming the flag and the presets", err)
	}
}

func TestWithDefaultsKeepsMeaningfulZeros(t *testing.T) {
	o := Options{Rate: 0, WriteFor: 0, MemoryLimit: 0, ReadRate: 0}.WithDefaults()
	if o.Rate != 0 || o.ReadRate != 0 || o.MemoryLimit != 0 {
		t.Errorf("WithDefaults overwrote a meaningful zero: %+v", o)
	}
	if o.Backlog != Defaults.Backlog || o.SampleInterval != Defaults.SampleInterval || o.Publishers != Defaults.Publishers {
		t.Errorf("WithDefaults left fields unset: %+v", o)
	}
}

func TestClusterConfig(t *testing.T) {
	base := cluster.Config{Name: "x", ServerVersion: "v2.10.7", MemoryLimit: 1 << 30, MaxMemoryStore: 1 << 28, StoreOnTmpfs: true, RunID: "r"}
	o := Defaults
	o.MemoryLimit, o.MaxOutstandingCatchup = 1536<<20, 8<<20
	cfg := o.ClusterConfig(base)
	switch {
	case cfg.MemoryLimit != 0:
		t.Errorf("MemoryLimit %d: the limit goes on the target only", cfg.MemoryLimit)
	case cfg.MaxMemoryStore != 0:
		t.Errorf("MaxMemoryStore %d left from the template", cfg.MaxMemoryStore)
	case cfg.GoMemLimitFor() != o.GoMemLimitBytes() || cfg.GoMemLimitFor() == 0:
		t.Errorf("GOMEMLIMIT %d, policy %d", cfg.GoMemLimitFor(), o.GoMemLimitBytes())
	case !cfg.AutoRestart || cfg.StoreOnTmpfs:
		t.Errorf("AutoRestart %v StoreOnTmpfs %v", cfg.AutoRestart, cfg.StoreOnTmpfs)
	case cfg.MaxOutstandingCatchup != 8<<20:
		t.Errorf("MaxOutstandingCatchup %d", cfg.MaxOutstandingCatchup)
	case cfg.ServerVersion != "v2.10.7" || cfg.RunID != "r" || cfg.Nodes != 3:
		t.Errorf("template fields lost: %+v", cfg)
	}
	if err := cfg.WithDefaults().Validate(); err != nil {
		t.Errorf("config does not validate: %v", err)
	}
	// No limit: GOMEMLIMIT unset on every node.
	if g := Defaults.ClusterConfig(base).GoMemLimitFor(); g != 0 {
		t.Errorf("no limit, auto: GOMEMLIMIT %d, want unset", g)
	}
}

func TestRefuse(t *testing.T) {
	noLimits := func(c cluster.Capability) error {
		if c == cluster.CapMemoryLimit {
			return cluster.Unsupported("local", c, "no cgroup")
		}
		return nil
	}
	if err := Defaults.Refuse(noLimits); err != nil {
		t.Errorf("no limit asked, refused: %v", err)
	}
	o := Defaults
	o.MemoryLimit = 1 << 30
	err := o.Refuse(noLimits)
	if !errors.Is(err, cluster.ErrUnsupported) || !strings.Contains(err.Error(), "--memory-limit") {
		t.Errorf("Refuse = %v, want an ErrUnsupported naming --memory-limit", err)
	}
}

func TestFlags(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want func(*Options)
		err  string
	}{
		{"defaults", nil, func(o *Options) {}, ""},
		{"sizes and durations", []string{"--backlog=1GiB", "--payload", "8KiB", "--down=10s", "--memory-limit=1.5GiB", "--gomemlimit=off", "--target=leader"},
			func(o *Options) {
				o.Backlog, o.Payload, o.Down, o.MemoryLimit, o.GoMemLimit, o.Target = 1<<30, 8<<10, 10*time.Second, 1536<<20, cluster.GoMemLimitOff, Leader
			}, ""},
		{"preset", []string{"--preset=seed-oom"}, func(o *Options) { *o, _ = Preset("seed-oom") }, ""},
		{"preset overridden", []string{"--preset=seed-oom", "--memory-limit=2GiB", "--max-outstanding-catchup=8MiB"},
			func(o *Options) {
				*o, _ = Preset("seed-oom")
				o.MemoryLimit, o.MaxOutstandingCatchup = 2<<30, 8<<20
			}, ""},
		{"unknown preset", []string{"--preset=huge"}, nil, "--preset"},
		{"bad size", []string{"--backlog=lots"}, nil, "backlog"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
			fs.SetOutput(io.Discard)
			f := BindFlags(fs)
			err := fs.Parse(tc.args)
			var got Options
			if err == nil {
				got, err = f.Options()
			}
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one naming %s", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := Defaults
			tc.want(&want)
			want = want.WithDefaults()
			if got != want {
				t.Errorf("Options =\n %+v\nwant\n %+v", got, want)
			}
		})
	}
}
