package nemesis

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in      string
		want    []string // fault names
		wantErr string
	}{
		{in: "", want: nil},
		{in: "none", want: nil},
		{in: " none ", want: nil},
		{in: "kill", want: []string{"kill"}},
		{in: "partition-one,partition-leader,partition-halves", want: []string{"partition-one", "partition-leader", "partition-halves"}},
		{in: "kill, restart ,pause,wipe,stepdown", want: []string{"kill", "restart", "pause", "wipe", "stepdown"}},
		{in: "latency,loss", want: []string{"latency=100ms", "loss=10%"}},
		{in: "latency=250ms,loss=5%", want: []string{"latency=250ms", "loss=5%"}},
		{in: "KILL", want: []string{"kill"}},
		{in: "chaos-monkey", wantErr: `unknown nemesis "chaos-monkey" (valid: none, partition-one, partition-leader, partition-halves, kill, restart, pause, wipe, catchup, power-loss, power-loss-majority, power-loss-all, kill-majority, kill-all, restart-all, pause-kill, bitflip, truncate, member-replace, stepdown, latency, loss, bandwidth)`},
		{in: "kill-majority,kill-all,restart-all,pause-kill,member-replace", want: []string{"kill-majority", "kill-all", "restart-all", "pause-kill", "member-replace"}},
		{in: "bitflip,truncate", want: []string{"bitflip=block", "truncate=block"}},
		{in: "bitflip=wal,truncate=snapshot,bitflip=Block", want: []string{"bitflip=wal", "truncate=snapshot", "bitflip=block"}},
		{in: "bitflip=index", wantErr: "nemesis bitflip=index: want one of block, wal, snapshot"},
		{in: "truncate=", wantErr: `nemesis "truncate=": nothing after "="`},
		{in: "latency=,kill", wantErr: `nothing after "="`},
		{in: "loss=0.5%,bandwidth", want: []string{"loss=0.5%", "bandwidth=1mbit"}},
		{in: "loss=12.345", wantErr: "at most two decimals"},
		{in: "loss=0", wantErr: "want a percentage in (0,100]"},
		{in: "bandwidth=500kbit,bandwidth=2.5mbit", want: []string{"bandwidth=500kbit", "bandwidth=2.5mbit"}},
		{in: "bandwidth=1gbit", want: []string{"bandwidth=1gbit"}},
		{in: "bandwidth=7kbit", wantErr: "from 8kbit"},
		{in: "bandwidth=1MB/s", wantErr: "want a rate in bits per second such as 500kbit"},
		{in: "bandwidth=mbit", wantErr: "want a rate in bits per second"},
		{in: "pause-kill=2", wantErr: "takes no parameter (only bitflip=block|wal|snapshot, truncate=block|wal|snapshot, latency=DURATION, loss=PERCENT, bandwidth=RATE do)"},
		{in: "pause+kill,pause-kill", want: []string{"pause+kill", "pause-kill"}},
		{in: "none,kill", wantErr: `"none" cannot be combined`},
		{in: "kill,kill", wantErr: `"kill" listed twice`},
		{in: "kill,,pause", wantErr: "empty nemesis name"},
		{in: "kill=3", wantErr: "takes no parameter"},
		{in: "latency=fast", wantErr: "want a positive duration"},
		{in: "loss=150%", wantErr: "want a percentage"},
		{in: "partition-leader+kill,pause", want: []string{"partition-leader+kill", "pause"}},
		{in: "kill+kill", wantErr: `"kill" appears twice`},
		{in: "none+kill", wantErr: `"none" cannot be combined`},
		{in: "kill+", wantErr: "empty nemesis name"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			fs, err := Parse(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Parse(%q) error = %v, want one containing %q", tt.in, err, tt.wantErr)
				}
				if strings.Contains(err.Error(), "\n") {
					t.Errorf("error is not one line: %q", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.in, err)
			}
			var got []string
			for _, f := range fs {
				got = append(got, f.Name())
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Parse(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

func TestRefuse(t *testing.T) {
	local := map[cluster.Capability]error{
		cluster.CapPartition: cluster.Unsupported("local", cluster.CapPartition, "processes share the loopback interface"),
		cluster.CapLatency:   cluster.Unsupported("local", cluster.CapLatency, "no sch_netem in this kernel"),
		cluster.CapLoss:      cluster.Unsupported("local", cluster.CapLoss, "no sch_netem in this kernel"),
	}
	tests := []struct {
		list    string
		caps    map[cluster.Capability]error
		wantErr string
	}{
		{list: "kill,restart,pause,wipe,stepdown", caps: local},
		{list: "kill,partition-one", caps: local, wantErr: "nemesis partition-one refused: unsupported: the local runtime cannot partition nodes (partition): processes share the loopback interface"},
		{list: "partition-halves", caps: local, wantErr: "nemesis partition-halves refused"},
		{list: "latency=50ms", caps: local, wantErr: "nemesis latency=50ms refused: unsupported: the local runtime cannot add network latency (latency): no sch_netem"},
		{list: "loss", caps: local, wantErr: "nemesis loss=10% refused"},
		{list: "wipe", caps: map[cluster.Capability]error{cluster.CapWipe: errors.New("tmpfs store")}, wantErr: "nemesis wipe refused: tmpfs store"},
		{list: "partition-one,latency,loss", caps: nil},
		{list: "none", caps: local},
	}
	for _, tt := range tests {
		t.Run(tt.list, func(t *testing.T) {
			fs, err := Parse(tt.list)
			if err != nil {
				t.Fatal(err)
			}
			f := &fake{caps: tt.caps}
			err = Refuse(fs, f)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Refuse: %v", err)
				}
				return
			}
			if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
				t.Fatalf("Refuse = %v, want prefix %q", err, tt.wantErr)
			}
			if tt.caps[cluster.CapPartition] != nil && strings.Contains(tt.wantErr, "partition") && !errors.Is(err, cluster.ErrUnsupported) {
				t.Errorf("refusal %v does not wrap cluster.ErrUnsupported", err)
			}
		})
	}
}

// testEnv is a fake cluster with short bounds.
func testEnv(t *testing.T, n int) (*fake, *Env) {
	t.Helper()
	f := newFake(n)
	t.Cleanup(func() { f.Close(context.Background()) })
	return f, &Env{
		Cluster:      f,
		Stream:       fakeStream,
		VerifyWithin: 300 * time.Millisecond,
		// Not shorter: under make test's parallel load the fake's own
		// /jsz once took over 100 ms to answer, and the fault failed.
		ProbeTimeout: time.Second,
		Logf:         t.Logf,
	}
}

// stopAfter wraps faults so that the run's context is cancelled once n
// faults have been injected: the n-th is held, cancelled, and healed.
func stopAfter(n int, cancel context.CancelFunc, faults []Fault) []Fault {
	var mu sync.Mutex
	count := 0
	out := make([]Fault, len(faults))
	for i, f := range faults {
		out[i] = hook{Fault: f, after: func() {
			mu.Lock()
			defer mu.Unlock()
			if count++; count == n {
				cancel()
			}
		}}
	}
	return out
}

type hook struct {
	Fault
	after func()
}

func (h hook) Inject(ctx context.Context, env *Env) (Active, error) {
	a, err := h.Fault.Inject(ctx, env)
	h.after()
	return a, err
}

func schedule(t *testing.T, seed uint64, list string, windows int) []Window {
	t.Helper()
	faults, err := Parse(list)
	if err != nil {
		t.Fatal(err)
	}
	_, env := testEnv(t, 5)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := Schedule{Faults: stopAfter(windows, cancel, faults), Interval: time.Millisecond, Seed: seed}
	ws := s.Run(ctx, env, nil)
	if len(ws) != windows {
		t.Fatalf("seed %d: %d windows, want %d", seed, len(ws), windows)
	}
	return ws
}

func plan(ws []Window) string {
	var b strings.Builder
	for _, w := range ws {
		fmt.Fprintf(&b, "%s@%s ", w.Fault, strings.Join(w.Targets, "+"))
	}
	return b.String()
}

func TestScheduleIsSeeded(t *testing.T) {
	const list = "kill,restart,pause,partition-one,partition-halves,wipe"
	const n = 8
	a := plan(schedule(t, 42, list, n))
	tests := []struct {
		seed uint64
		same bool
	}{{42, true}, {43, false}, {7, false}}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.seed), func(t *testing.T) {
			b := plan(schedule(t, tt.seed, list, n))
			if (a == b) != tt.same {
				t.Errorf("seed 42: %s\nseed %d: %s\nsame=%v, want %v", a, tt.seed, b, a == b, tt.same)
			}
		})
	}
	t.Logf("seed 42: %s", a)
}

func TestFaultsVerified(t *testing.T) {
	tests := []struct {
		list       string
		targets    int
		wantDetail string
	}{
		{"kill", 1, "down, monitor refused"},
		{"restart", 1, "down, monitor refused"},
		{"pause", 1, "paused, monitor timed out"},
		{"partition-one", 1, "routes cut"},
		{"partition-leader", 1, "(stream S leader)"},
		{"partition-halves", 2, "routes cut"},
		{"wipe", 1, "store empty: n"},
		{"partition-leader+pause", 2, "(stream S leader)"},
	}
	for _, tt := range tests {
		t.Run(tt.list, func(t *testing.T) {
			faults, _ := Parse(tt.list)
			f, env := testEnv(t, 5)
			f.leader = 3
			rec, err := history.NewRecorder(filepath.Join(t.TempDir(), "history.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			defer rec.Close()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			ws := Schedule{Faults: stopAfter(1, cancel, faults), Interval: 10 * time.Millisecond, Seed: 1}.Run(ctx, env, rec)
			if len(ws) != 1 {
				t.Fatalf("%d windows", len(ws))
			}
			w := ws[0]
			if !w.Verified || !w.Injected || !strings.Contains(w.Detail, tt.wantDetail) || len(w.Targets) != tt.targets {
				t.Errorf("window %+v: want verified with %d targets and detail containing %q", w, tt.targets, tt.wantDetail)
			}
			if tt.list == "partition-leader" && w.Targets[0] != "n4" {
				t.Errorf("partition-leader isolated %v, want the leader n4", w.Targets)
			}
			ops := rec.Ops()
			if len(ops) != 1 {
				t.Fatalf("%d ops recorded", len(ops))
			}
			op := ops[0]
			if op.Type != history.Fault || op.Client != history.NemesisClient || op.Fault != tt.list ||
				op.Verified == nil || !*op.Verified || op.Outcome != history.OK ||
				!slices.Equal(op.Targets, w.Targets) || op.Invoke >= op.Complete {
				t.Errorf("op %+v does not match window %+v", op, w)
			}
			if s := f.whole(); s != "" {
				t.Errorf("not restored: %s", s)
			}
		})
	}
}

// TestComboHealsWhatIsInEffect: pause+kill on one node, the kill ends the
// pause, whose heal then only waits for the node the kill's heal brings
// back; it once said "NOT VERIFIED: resume n1: ... is not paused".
func TestComboHealsWhatIsInEffect(t *testing.T) {
	faults, err := Parse("pause+kill")
	if err != nil {
		t.Fatal(err)
	}
	f, env := testEnv(t, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ws := Schedule{Faults: stopAfter(1, cancel, faults), Interval: 10 * time.Millisecond, Seed: 1}.Run(ctx, env, nil)
	if len(ws) != 1 || !ws[0].Verified || strings.Contains(ws[0].Detail, "NOT VERIFIED") ||
		!strings.Contains(ws[0].Detail, "n1 no longer paused (another fault of the window ended its process); n1 back") {
		t.Fatalf("windows %+v: want one verified, its pause's heal saying the kill ended it", ws)
	}
	if s := f.whole(); s != "" {
		t.Errorf("not restored: %s", s)
	}
}

// A fault whose control silently does nothing is recorded as unverified,
// with what the check saw.
func TestUnverifiedFaults(t *testing.T) {
	tests := []struct {
		list, broken, wantDetail string
	}{
		{"kill", "kill", "NOT VERIFIED: kill n"},
		{"kill", "start", "heal: NOT VERIFIED: n"},
		{"restart", "stop", "still running"},
		{"pause", "pause", "monitor still answers"},
		{"partition-halves", "partition", "routes still up"},
		{"partition-one", "heal", "heal: NOT VERIFIED: routes not full"},
		{"wipe", "wipe", "store not empty: 1 file(s) in n"},
		{"partition-one+kill", "kill", "NOT VERIFIED: kill n"},
	}
	for _, tt := range tests {
		t.Run(tt.list+"/"+tt.broken, func(t *testing.T) {
			faults, _ := Parse(tt.list)
			f, env := testEnv(t, 3)
			f.noop[tt.broken] = true
			rec, err := history.NewRecorder(filepath.Join(t.TempDir(), "history.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			defer rec.Close()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			ws := Schedule{Faults: stopAfter(1, cancel, faults), Interval: 10 * time.Millisecond, Seed: 3}.Run(ctx, env, rec)
			if len(ws) != 1 {
				t.Fatalf("%d windows", len(ws))
			}
			w, op := ws[0], rec.Ops()[0]
			if w.Verified || !strings.Contains(w.Detail, tt.wantDetail) {
				t.Errorf("window %+v: want unverified with detail containing %q", w, tt.wantDetail)
			}
			if op.Verified == nil || *op.Verified || op.Outcome != history.Info || op.Detail != w.Detail {
				t.Errorf("op %+v: want verified=false, outcome info, the window's detail", op)
			}
		})
	}
}

// A fault that cannot be applied at all is recorded as failed.
func TestNotInjected(t *testing.T) {
	_, env := testEnv(t, 3)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	faults, _ := Parse("stepdown")
	ws := Schedule{Faults: stopAfter(1, cancel, faults), Interval: time.Millisecond}.Run(ctx, env, nil)
	if len(ws) != 1 || ws[0].Injected || ws[0].Verified || !strings.Contains(ws[0].Detail, "no JetStream client") {
		t.Fatalf("windows %+v", ws)
	}
	if op := ws[0].Op(); op.Outcome != history.Fail || *op.Verified {
		t.Errorf("op %+v: want outcome fail, verified false", op)
	}
}

// Cancelling the run mid-fault still heals it, and the final restore
// brings back whatever a fault's own heal could not.
func TestFinalHealOnCancel(t *testing.T) {
	tests := []struct {
		list   string
		broken string // a control whose first heal attempt does nothing
	}{
		{"kill", ""},
		{"restart", ""},
		{"pause", ""},
		{"wipe", ""},
		{"partition-halves", ""},
		{"partition-leader", ""},
		{"pause", "resume"},
		{"partition-one", "heal"},
	}
	for _, tt := range tests {
		t.Run(tt.list+"/"+tt.broken, func(t *testing.T) {
			faults, _ := Parse(tt.list)
			f, env := testEnv(t, 3)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var once sync.Once
			held := hook{Fault: faults[0], after: func() {
				once.Do(func() {
					if tt.broken != "" {
						f.mu.Lock()
						f.noop[tt.broken] = true
						f.mu.Unlock()
					}
					time.AfterFunc(50*time.Millisecond, cancel)
				})
			}}
			env.Logf = func(format string, args ...any) {
				// The fault's own heal has run: let the final restore work.
				if strings.HasPrefix(format, "nemesis: %s %s: verified") {
					f.mu.Lock()
					f.noop = map[string]bool{}
					f.mu.Unlock()
				}
			}
			start := time.Now()
			ws := Schedule{Faults: []Fault{held}, Interval: 300 * time.Millisecond}.Run(ctx, env, nil)
			if len(ws) != 1 {
				t.Fatalf("%d windows: %+v", len(ws), ws)
			}
			if time.Since(start) > 5*time.Second {
				t.Errorf("run took %s after cancel", time.Since(start))
			}
			if s := f.whole(); s != "" {
				t.Fatalf("not restored after cancel: %s (window %+v)", s, ws[0])
			}
			if tt.broken != "" && ws[0].Verified {
				t.Errorf("window verified though its heal did nothing: %+v", ws[0])
			}
			r := WaitRecovered(context.Background(), env, 2*time.Second)
			if !r.Recovered {
				t.Errorf("not recovered: %+v", r)
			}
		})
	}
}

func TestWaitRecovered(t *testing.T) {
	tests := []struct {
		name       string
		break_     func(f *fake)
		recovered  bool
		wantDetail string
	}{
		{"whole", func(*fake) {}, true, "stream S leader n1 with 2 current replicas"},
		{"node down", func(f *fake) { f.Kill(context.Background(), 1) }, false, "did not recover within 3.0s: n2 /healthz"},
		{"partitioned", func(f *fake) { f.Partition(context.Background(), [][]int{{0, 1}, {2}}) }, false, "want 2 peers"},
		{"paused", func(f *fake) { f.Pause(context.Background(), 2) }, false, "n3 /healthz"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, env := testEnv(t, 3)
			tt.break_(f)
			// A bound well above the probe timeout (100ms): on a loaded
			// machine a healthy node's answer may be slow, and the last
			// thing seen must still be the broken node.
			r := WaitRecovered(context.Background(), env, 3*time.Second)
			if r.Recovered != tt.recovered || !strings.Contains(r.Detail, tt.wantDetail) {
				t.Errorf("WaitRecovered = %+v, want recovered=%v and detail containing %q", r, tt.recovered, tt.wantDetail)
			}
			if err := Restore(context.Background(), env); err != nil {
				t.Fatal(err)
			}
			if r := WaitRecovered(context.Background(), env, 2*time.Second); !r.Recovered {
				t.Errorf("after Restore: %+v", r)
			}
		})
	}
}

func TestNoFaults(t *testing.T) {
	_, env := testEnv(t, 3)
	if ws := (Schedule{Interval: time.Hour}).Run(context.Background(), env, nil); ws != nil {
		t.Fatalf("windows %+v", ws)
	}
}

func TestAimAtLeavesRolesAndManyNodeFaults(t *testing.T) {
	tests := []struct{ in, want string }{
		{"kill", "kill:leader"},
		{"kill:old-leader", "kill:old-leader"},
		{"latency=200ms", "latency=200ms:leader"},
		{"partition-leader", "partition-leader"},
		{"kill-majority", "kill-majority"},
		{"partition-leader+kill", "partition-leader+kill:leader"},
		{"pause@leader-change", "pause:leader@leader-change"},
	}
	for _, tt := range tests {
		fs, err := Parse(tt.in)
		if err != nil {
			t.Fatalf("%s: %v", tt.in, err)
		}
		if got := AimAt(fs, RoleLeader)[0].Name(); got != tt.want {
			t.Errorf("AimAt(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// A wipe's heal proves the store was empty from the store directory where
// the runtime shows it, and from the restarted node's first /jsz
// elsewhere; a catch-up that beats the first reading is no failure of the
// wipe where the directory was seen empty.
func TestWipeEmptinessEvidence(t *testing.T) {
	tests := []struct {
		name                   string
		noFiles, noop, fastJsz bool
		verified               bool
		want                   string
	}{
		{"directory seen empty", false, false, false, true, "store empty: no file in n"},
		{"directory empty, catch-up before the first reading", false, false, true, true, "store empty: no file in n"},
		{"directory still full", false, true, false, false, "store not empty: 1 file(s) in n"},
		{"no directory: /jsz showed it empty", true, false, false, true, "store empty: n"},
		{"no directory: /jsz showed it full", true, true, false, false, "store not seen empty"},
		{"no directory: catch-up before the first reading", true, false, true, false, "store not seen empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			faults, _ := Parse("wipe")
			f, env := testEnv(t, 3)
			f.noop["wipe"], f.fastCatchUp = tt.noop, tt.fastJsz
			if tt.noFiles {
				f.caps[cluster.CapStoreFiles] = cluster.ErrUnsupported
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			ws := Schedule{Faults: stopAfter(1, cancel, faults), Interval: 10 * time.Millisecond, Seed: 3}.Run(ctx, env, nil)
			if len(ws) != 1 || ws[0].Verified != tt.verified || !strings.Contains(ws[0].Detail, tt.want) {
				t.Fatalf("windows %+v: want one, verified=%v, its detail containing %q", ws, tt.verified, tt.want)
			}
		})
	}
}
