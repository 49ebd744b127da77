package nemesis

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

// powerFake adds the power-loss control to the fake: it kills the nodes
// (unless the fake's kill is broken) and reports discard for each.
type powerFake struct {
	*fake
	discard cluster.Discard
	calls   [][]int
}

func (p *powerFake) PowerLoss(ctx context.Context, idx []int) ([]cluster.Discard, error) {
	p.calls = append(p.calls, slices.Clone(idx))
	var out []cluster.Discard
	for _, i := range idx {
		p.fake.Kill(ctx, i)
		d := p.discard
		d.Node = cluster.NodeName(i)
		out = append(out, d)
	}
	return out, nil
}

func TestPowerLossParseAndTargets(t *testing.T) {
	tests := []struct {
		name      string
		nodes     int
		wantCount int
	}{
		{"power-loss", 3, 1},
		{"power-loss", 5, 1},
		{"power-loss-majority", 3, 2},
		{"power-loss-majority", 5, 3},
		{"power-loss-all", 3, 3},
		{"power-loss-all", 5, 5},
	}
	for _, tt := range tests {
		fs, err := Parse(tt.name)
		if err != nil || len(fs) != 1 || fs[0].Name() != tt.name {
			t.Fatalf("Parse(%s) = %v, %v", tt.name, fs, err)
		}
		if !slices.Equal(fs[0].Needs(), []cluster.Capability{cluster.CapPowerLoss}) {
			t.Errorf("%s needs %v", tt.name, fs[0].Needs())
		}
		pl := fs[0].(powerLoss)
		seen := map[string]bool{}
		for seed := range uint64(20) {
			got := pl.targets(tt.nodes, &Env{Rand: rand.New(rand.NewPCG(seed, 1))})
			again := pl.targets(tt.nodes, &Env{Rand: rand.New(rand.NewPCG(seed, 1))})
			if len(got) != tt.wantCount || !slices.IsSorted(got) || len(slices.Compact(slices.Clone(got))) != len(got) ||
				got[0] < 0 || got[len(got)-1] >= tt.nodes || !slices.Equal(got, again) {
				t.Fatalf("%s of %d nodes, seed %d: targets %v (again %v), want %d distinct sorted nodes, the same for a seed", tt.name, tt.nodes, seed, got, again, tt.wantCount)
			}
			seen[fmt.Sprint(got)] = true
		}
		if tt.wantCount < tt.nodes && len(seen) < 2 {
			t.Errorf("%s of %d nodes picks the same targets for every seed: %v", tt.name, tt.nodes, seen)
		}
	}
	for list, want := range map[string]bool{"kill": false, "kill,power-loss": true, "partition-one+power-loss-all": true, "none": false} {
		fs, _ := Parse(list)
		if got := NeedsPowerLossStore(fs); got != want {
			t.Errorf("NeedsPowerLossStore(%s) = %v, want %v", list, got, want)
		}
	}
}

func TestPowerLossFault(t *testing.T) {
	written := cluster.Discard{Bytes: 241878, Files: 11, Undone: 2, Written: 244637, Fsyncs: 60, Largest: []string{"jetstream/x/1.blk (200000 bytes)"}}
	tests := []struct {
		name       string
		list       string
		discard    cluster.Discard
		plain      bool   // a cluster without the power-loss control
		refused    bool   // Supports(power-loss) refuses
		broken     string // a fake control that does nothing
		injected   bool
		verified   bool
		targets    int
		wantDetail string
	}{
		{name: "all, bytes discarded", list: "power-loss-all", discard: written, injected: true, verified: true, targets: 3,
			wantDetail: "n3 discarded 241878 unsynced bytes (11 files rolled back, 2 creates/unlinks/renames undone; 244637 bytes written and 60 fsyncs since its store was mounted; most from jetstream/x/1.blk (200000 bytes))"},
		{name: "one, nothing unsynced", list: "power-loss", discard: cluster.Discard{Written: 5000, Fsyncs: 40}, injected: true, verified: true, targets: 1,
			wantDetail: "discarded 0 unsynced bytes"},
		{name: "majority", list: "power-loss-majority", discard: written, injected: true, verified: true, targets: 2, wantDetail: "down, monitor refused"},
		{name: "store saw no write", list: "power-loss", discard: cluster.Discard{}, injected: true, targets: 1,
			wantDetail: "its store saw no write since it was mounted"},
		{name: "nodes not killed", list: "power-loss-all", discard: written, broken: "kill", injected: true, targets: 3,
			wantDetail: "NOT VERIFIED: not all down"},
		{name: "not restarted", list: "power-loss-majority", discard: written, broken: "start", injected: true, targets: 2,
			wantDetail: "heal: NOT VERIFIED"},
		{name: "no control", list: "power-loss", plain: true, wantDetail: "not injected: power-loss: unsupported: the fake runtime has no power-loss control"},
		{name: "refused", list: "power-loss-all", refused: true, wantDetail: "not injected: power-loss-all: unsupported: the fake runtime cannot cut a node's power (power-loss): no FUSE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			faults, err := Parse(tt.list)
			if err != nil {
				t.Fatal(err)
			}
			f, env := testEnv(t, 3)
			pf := &powerFake{fake: f, discard: tt.discard}
			if !tt.plain {
				env.Cluster = pf
			}
			if tt.refused {
				f.caps[cluster.CapPowerLoss] = cluster.Unsupported("fake", cluster.CapPowerLoss, "no FUSE")
			}
			if tt.broken != "" {
				f.noop[tt.broken] = true
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			ws := Schedule{Faults: stopAfter(1, cancel, faults), Interval: 10 * time.Millisecond, Seed: 5}.Run(ctx, env, nil)
			if len(ws) != 1 {
				t.Fatalf("%d windows", len(ws))
			}
			w := ws[0]
			if w.Injected != tt.injected || w.Verified != tt.verified || len(w.Targets) != tt.targets || !strings.Contains(w.Detail, tt.wantDetail) {
				t.Errorf("window %+v\nwant injected=%v verified=%v, %d targets, detail containing %q", w, tt.injected, tt.verified, tt.targets, tt.wantDetail)
			}
			if tt.injected && (len(pf.calls) != 1 || len(pf.calls[0]) != tt.targets) {
				t.Errorf("PowerLoss calls %v, want one of %d nodes at once", pf.calls, tt.targets)
			}
			if tt.broken == "" {
				if s := f.whole(); s != "" {
					t.Errorf("not restored: %s", s)
				}
			}
		})
	}
}

func TestPowerLossRefused(t *testing.T) {
	fs, _ := Parse("kill,power-loss-all")
	caps := map[cluster.Capability]error{cluster.CapPowerLoss: cluster.Unsupported("local", cluster.CapPowerLoss, "the page cache survives a kill")}
	err := Refuse(fs, &fake{caps: caps})
	if err == nil || err.Error() != "nemesis power-loss-all refused: unsupported: the local runtime cannot cut a node's power (power-loss): the page cache survives a kill" {
		t.Errorf("Refuse = %v", err)
	}
}
