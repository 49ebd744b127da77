package nemesis

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

// storeFiles are the files a fake node's store starts with, by path under
// the store directory, and their sizes. The newest of each class with data:
// msgs/2.blk (3.blk is empty), the group's msgs/7.blk, snap.10.3.
var storeFiles = map[string]int{
	"jetstream/$G/streams/S/meta.inf":                    50,
	"jetstream/$G/streams/S/msgs/1.blk":                  300,
	"jetstream/$G/streams/S/msgs/2.blk":                  200,
	"jetstream/$G/streams/S/msgs/3.blk":                  0,
	"jetstream/$G/streams/S/msgs/index.db":               40,
	"jetstream/$SYS/_js_/S-R3F-fake/msgs/7.blk":          120,
	"jetstream/$SYS/_js_/S-R3F-fake/msgs/6.blk":          500,
	"jetstream/$SYS/_js_/S-R3F-fake/peers.idx":           30,
	"jetstream/$SYS/_js_/S-R3F-fake/snapshots/snap.2.5":  80,
	"jetstream/$SYS/_js_/S-R3F-fake/snapshots/snap.10.3": 90,
	"jetstream/$SYS/_js_/_meta_/msgs/9.blk":              60,
}

var newest = map[string]string{
	classBlock:    "jetstream/$G/streams/S/msgs/2.blk",
	classWAL:      "jetstream/$SYS/_js_/S-R3F-fake/msgs/7.blk",
	classSnapshot: "jetstream/$SYS/_js_/S-R3F-fake/snapshots/snap.10.3",
}

// writeStores fills every fake node's store with storeFiles of random
// bytes and returns their contents by node and path.
func writeStores(t *testing.T, f *fake) map[string][]byte {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	out := map[string][]byte{}
	for i := range f.nodes {
		dir, err := f.StoreDir(i)
		if err != nil {
			t.Fatal(err)
		}
		paths := slices.Sorted(maps.Keys(storeFiles)) // the same bytes every time
		for _, p := range paths {
			b := make([]byte, storeFiles[p])
			for k := range b {
				b[k] = byte(rng.UintN(256))
			}
			full := filepath.Join(dir, p)
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(full, b, 0o644); err != nil {
				t.Fatal(err)
			}
			out[full] = b
		}
	}
	return out
}

// changedFiles compares the stores with what writeStores wrote: by file,
// how many bytes differ and how many bits (a cut file: -1 and its new size).
func changedFiles(t *testing.T, was map[string][]byte) map[string][2]int {
	t.Helper()
	out := map[string][2]int{}
	for p, old := range was {
		now, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case len(now) != len(old):
			if !bytes.HasPrefix(old, now) {
				t.Errorf("%s: cut to %d bytes that are not the file's head", p, len(now))
			}
			out[p] = [2]int{-1, len(now)}
		case !bytes.Equal(now, old):
			var nbytes, nbits int
			for k := range now {
				if d := now[k] ^ old[k]; d != 0 {
					nbytes++
					nbits += bits.OnesCount8(d)
				}
			}
			out[p] = [2]int{nbytes, nbits}
		}
	}
	return out
}

// runWindow runs one window of list on a fake of n nodes set up by prep.
func runWindow(t *testing.T, list string, n int, seed uint64, prep func(*fake, *Env)) (*fake, *Env, Window) {
	t.Helper()
	faults, err := Parse(list)
	if err != nil {
		t.Fatal(err)
	}
	f, env := testEnv(t, n)
	env.memberOps = fakeMembers{f}
	if prep != nil {
		prep(f, env)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ws := Schedule{Faults: stopAfter(1, cancel, faults), Interval: 10 * time.Millisecond, Seed: seed}.Run(ctx, env, nil)
	if len(ws) != 1 {
		t.Fatalf("%d windows", len(ws))
	}
	return f, env, ws[0]
}

func opsOf(f *fake, op string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, o := range f.ops {
		if strings.HasPrefix(o, op+" ") {
			out = append(out, o)
		}
	}
	return out
}

func TestCrashFaults(t *testing.T) {
	tests := []struct {
		list       string
		control    string // called once per target, together
		targets    int    // of 5 nodes
		wantDetail string
	}{
		{"kill-majority", "kill", 3, "3 nodes killed within"},
		{"kill-all", "kill", 5, "5 nodes killed within"},
		{"restart-all", "stop", 5, "5 nodes stopped within"},
	}
	for _, tt := range tests {
		t.Run(tt.list, func(t *testing.T) {
			f, _, w := runWindow(t, tt.list, 5, 1, nil)
			if !w.Verified || len(w.Targets) != tt.targets || !strings.Contains(w.Detail, tt.wantDetail) {
				t.Errorf("window %+v: want verified, %d targets, detail with %q", w, tt.targets, tt.wantDetail)
			}
			if got := opsOf(f, tt.control); len(got) != tt.targets {
				t.Errorf("%s called %v, want once for each of %d targets", tt.control, got, tt.targets)
			}
			if strings.Count(w.Detail, "back with full routes") != tt.targets {
				t.Errorf("heal does not check every target back: %s", w.Detail)
			}
			if s := f.whole(); s != "" {
				t.Errorf("not restored: %s", s)
			}
		})
	}
}

// kill-all ends in a verdict when the cluster does not come back: the
// heal's check gives up within VerifyWithin and WaitRecovered within its
// bound, and not recovering is the result.
func TestKillAllNotRecovering(t *testing.T) {
	start := time.Now()
	f, env, w := runWindow(t, "kill-all", 3, 1, func(f *fake, _ *Env) { f.noop["start"] = true })
	if !w.Injected || w.Verified || !strings.Contains(w.Detail, "heal: NOT VERIFIED") || !strings.Contains(w.Detail, "not back within") {
		t.Errorf("window %+v: want injected, unverified, the heal saying the nodes are not back", w)
	}
	r := WaitRecovered(context.Background(), env, 500*time.Millisecond)
	if r.Recovered || !strings.Contains(r.Detail, "did not recover within 0.5s") {
		t.Errorf("WaitRecovered = %+v, want not recovered within the bound", r)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("took %s", took)
	}
	if f.whole() == "" {
		t.Error("the fake came back although start does nothing")
	}
}

func TestPauseKill(t *testing.T) {
	f, _, w := runWindow(t, "pause-kill", 5, 4, nil)
	if !w.Verified || len(w.Targets) != 1 || !strings.Contains(w.Detail, "paused, monitor timed out") || !strings.Contains(w.Detail, "then killed: ") {
		t.Errorf("window %+v", w)
	}
	p, k := opsOf(f, "pause"), opsOf(f, "kill")
	if len(p) != 1 || len(k) != 1 || strings.TrimPrefix(p[0], "pause ") != strings.TrimPrefix(k[0], "kill ") {
		t.Errorf("paused %v and killed %v: want the same one node", p, k)
	}
	if s := f.whole(); s != "" {
		t.Errorf("not restored: %s", s)
	}
}

func TestShapingFaults(t *testing.T) {
	tests := []struct {
		list, control, wantDetail string
	}{
		{"loss=12.5%", "loss", "dropped 12 of 100 peer packets (12.0%)"},
		{"bandwidth=800kbit", "rate", "at 100000 bytes/s: 30000 bytes in 20 packets through the tbf"},
	}
	for _, tt := range tests {
		t.Run(tt.list, func(t *testing.T) {
			f, _, w := runWindow(t, tt.list, 3, 2, nil)
			if !w.Verified || len(w.Targets) != 1 || !strings.Contains(w.Detail, tt.wantDetail) || !strings.Contains(w.Detail, "gone and routes full") {
				t.Errorf("window %+v: want verified with %q", w, tt.wantDetail)
			}
			calls := opsOf(f, tt.control)
			if len(calls) < 2 || calls[0] != calls[1] {
				t.Errorf("%s calls %v: want set and removed on the same node", tt.control, calls)
			}
			for _, n := range f.nodes {
				if n.net.loss != 0 || n.net.rate != 0 {
					t.Errorf("%s still shaped: %+v", n.name, n.net)
				}
			}
		})
	}
}

func TestCorruptFaults(t *testing.T) {
	for _, class := range fileClasses {
		for _, mode := range []string{"bitflip", "truncate"} {
			list := mode + "=" + class
			t.Run(list, func(t *testing.T) {
				var was map[string][]byte
				f, _, w := runWindow(t, list, 5, 3, func(f *fake, _ *Env) { was = writeStores(t, f) })
				if !w.Verified || len(w.Targets) != 2 || !strings.Contains(w.Detail, filepath.Base(newest[class])) {
					t.Fatalf("window %+v: want verified, 2 of 5 nodes, the newest %s file named", w, class)
				}
				changed := changedFiles(t, was)
				if len(changed) != 2 {
					t.Fatalf("changed %v, want one file on each of the 2 targets", changed)
				}
				for p, c := range changed {
					if !strings.HasSuffix(p, newest[class]) {
						t.Errorf("changed %s, want the newest %s file", p, class)
					}
					node := strings.Split(strings.TrimPrefix(p, f.dir+"/"), "/")[0]
					if !slices.Contains(w.Targets, node) {
						t.Errorf("changed %s on %s, not a target %v", p, node, w.Targets)
					}
					switch {
					case mode == "bitflip" && c != [2]int{bitflipCount, bitflipCount}:
						t.Errorf("%s: %d bytes, %d bits changed; want %d bits in as many bytes", p, c[0], c[1], bitflipCount)
					case mode == "truncate" && (c[0] != -1 || !strings.Contains(w.Detail, fmt.Sprintf("cut at offset %d:", c[1]))):
						t.Errorf("%s: %v, want cut at the offset the detail records (%s)", p, c, w.Detail)
					}
				}
				if got := opsOf(f, "stop"); len(got) != 2 {
					t.Errorf("stopped %v, want the 2 targets", got)
				}
				if s := f.whole(); s != "" {
					t.Errorf("not restored: %s", s)
				}
			})
		}
	}
}

// The same seed changes the same bytes.
func TestCorruptIsSeeded(t *testing.T) {
	details := map[uint64]string{}
	for _, seed := range []uint64{5, 5, 6} {
		_, _, w := runWindow(t, "bitflip", 3, seed, func(f *fake, _ *Env) { writeStores(t, f) })
		if !w.Verified {
			t.Fatalf("window %+v", w)
		}
		d := w.Detail[strings.Index(w.Detail, "bits flipped"):]
		d = d[:strings.Index(d, ";")]
		if old, ok := details[seed]; ok && old != d {
			t.Errorf("seed %d flipped %q, then %q", seed, old, d)
		}
		details[seed] = d
	}
	if details[5] == details[6] {
		t.Errorf("seeds 5 and 6 both flipped %q", details[5])
	}
}

func TestMemberReplace(t *testing.T) {
	f, env, w := runWindow(t, "member-replace", 3, 2, nil)
	if !w.Verified || len(w.Targets) != 1 {
		t.Fatalf("window %+v", w)
	}
	old := w.Targets[0]
	i := slices.Index(env.allNames(), old+"-r1")
	if i < 0 || cluster.NodeName(i) != old {
		t.Fatalf("nodes %v: want %s renamed %s-r1 in place", env.allNames(), old, old)
	}
	if slices.Contains(f.metaPeers, old) || !slices.Contains(f.metaPeers, old+"-r1") ||
		slices.Contains(f.streamPeers, old) || !slices.Contains(f.streamPeers, old+"-r1") {
		t.Errorf("meta %v, stream %v: want %s out and %s-r1 in", f.metaPeers, f.streamPeers, old, old)
	}
	for _, want := range []string{"stream peer " + old + " removed", "server " + old + " removed", "-> meta [", "a current replica"} {
		if !strings.Contains(w.Detail, want) {
			t.Errorf("detail %q lacks %q", w.Detail, want)
		}
	}
	if got := strings.Join(append(opsOf(f, "stop"), append(opsOf(f, "wipe"), opsOf(f, "start-as")...)...), ","); got != fmt.Sprintf("stop %d,wipe %d,start-as %d", i, i, i) {
		t.Errorf("controls %s: want stop, wipe, start-as of node %d", got, i)
	}
}

func TestDataFaultsUnverified(t *testing.T) {
	tests := []struct {
		list       string
		prep       func(*fake, *Env)
		wantDetail string
	}{
		{"kill-all", func(f *fake, _ *Env) { f.noop["kill"] = true }, "not down within"},
		{"pause-kill", func(f *fake, _ *Env) { f.noop["kill"] = true }, "then killed, but not down within"},
		{"loss", func(f *fake, _ *Env) { f.noop["loss"] = true }, "loss=10% not seen dropping within"},
		{"bandwidth", func(f *fake, _ *Env) { f.noop["rate"] = true }, "not seen passing traffic within"},
		{"bitflip", nil, "injection failed: bitflip=block on n"},
		{"truncate", func(f *fake, _ *Env) {
			f.caps[cluster.CapStoreFiles] = cluster.Unsupported("docker", cluster.CapStoreFiles, "the store is on tmpfs")
		}, "not injected: truncate=block: unsupported: the docker runtime cannot edit a node's store files (store-files): the store is on tmpfs"},
		{"truncate=snapshot", func(f *fake, _ *Env) { writeStores(t, f); f.noop["stop"] = true }, "store left alone"},
		{"member-replace", func(f *fake, _ *Env) { f.fail["remove-server"] = "member change in flight" }, "still failing after"},
		{"member-replace", func(f *fake, _ *Env) { f.noop["remove-stream-peer"] = true }, "not as asked within"},
		{"member-replace", func(_ *fake, e *Env) { e.memberOps = nil }, "not injected: member-replace: no JetStream client"},
		// The leader calls the new server current while its stream is
		// still catching up (repro/corruptleader): not healed.
		{"member-replace", func(f *fake, _ *Env) {
			for _, n := range []string{"n1-r1", "n2-r1", "n3-r1"} {
				f.unhealthy[n] = "JetStream stream '$G > S' is not current: stream catching up"
			}
		}, `with 2 current replicas; but n3-r1 /healthz 503 {"error":"JetStream stream '$G \u003e S' is not current: stream catching up"`},
	}
	for _, tt := range tests {
		t.Run(tt.list+"/"+tt.wantDetail, func(t *testing.T) {
			_, _, w := runWindow(t, tt.list, 3, 1, tt.prep)
			if w.Verified || !strings.Contains(w.Detail, tt.wantDetail) {
				t.Errorf("window %+v: want unverified with %q", w, tt.wantDetail)
			}
		})
	}
}

func TestNewestFile(t *testing.T) {
	f, _ := testEnv(t, 1)
	writeStores(t, f)
	dir, _ := f.StoreDir(0)
	for class, want := range newest {
		got, err := newestFile(dir, class, fakeStream, fakeGroup)
		if err != nil || got != filepath.Join(dir, want) {
			t.Errorf("newestFile(%s) = %s, %v; want %s", class, got, err, want)
		}
	}
	if _, err := newestFile(dir, classWAL, fakeStream, "S-R3F-other"); err == nil || !strings.Contains(err.Error(), "no wal file with data matches jetstream/*/_js_/S-R3F-other/msgs/*.blk") {
		t.Errorf("a missing group: %v", err)
	}
}

func TestNextServerName(t *testing.T) {
	tests := []struct {
		old   string
		inUse []string
		want  string
	}{
		{"n2", nil, "n2-r1"},
		{"n2-r1", nil, "n2-r2"},
		{"n2-r9", []string{"n2-r10"}, "n2-r11"},
		{"n2", []string{"n2-r1"}, "n2-r2"},
		{"a-rx", nil, "a-rx-r1"},
	}
	for _, tt := range tests {
		if got := nextServerName(tt.old, tt.inUse); got != tt.want {
			t.Errorf("nextServerName(%q, %v) = %q, want %q", tt.old, tt.inUse, got, tt.want)
		}
	}
}

func TestRefuseDataFaults(t *testing.T) {
	local := map[cluster.Capability]error{
		cluster.CapLoss:      cluster.Unsupported("local", cluster.CapLoss, "one network namespace"),
		cluster.CapBandwidth: cluster.Unsupported("local", cluster.CapBandwidth, "one network namespace"),
	}
	for list, want := range map[string]string{
		"kill-majority,kill-all,restart-all,pause-kill,bitflip,truncate=wal,member-replace": "",
		"loss=5%":         "nemesis loss=5% refused: unsupported: the local runtime cannot drop packets (loss): one network namespace",
		"bandwidth=1mbit": "nemesis bandwidth=1mbit refused: unsupported: the local runtime cannot limit bandwidth (bandwidth)",
	} {
		fs, err := Parse(list)
		if err != nil {
			t.Fatal(err)
		}
		err = Refuse(fs, &fake{caps: local})
		if (want == "") != (err == nil) || (err != nil && !strings.HasPrefix(err.Error(), want)) {
			t.Errorf("Refuse(%s) = %v, want %q", list, err, want)
		}
	}
	tmpfs := map[cluster.Capability]error{cluster.CapStoreFiles: cluster.Unsupported("docker", cluster.CapStoreFiles, "the store is on tmpfs")}
	fs, _ := Parse("truncate")
	if err := Refuse(fs, &fake{caps: tmpfs}); err == nil || !strings.Contains(err.Error(), "tmpfs") {
		t.Errorf("truncate on tmpfs: %v", err)
	}
}
