package catchup

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/cluster/serverbin"
)

// TestMeasure runs a matrix for the record, only when asked:
//
//	CATCHUP_MEASURE=1 CATCHUP_PRESET=seed-oom CATCHUP_VERSIONS=v2.10.7,v2.11.8,default \
//	CATCHUP_DIRECT_GET=off CATCHUP_DIR=/tmp/catchup go test ./workloads/catchup -run TestMeasure -timeout 3h -v
//
// It is the stand-in for `chaos run --workload catchup` until the pipeline
// wires the workload in: one cell per version and Direct Get setting, each
// on a fresh Docker cluster whose stores are deleted after the cell.
func TestMeasure(t *testing.T) {
	if os.Getenv("CATCHUP_MEASURE") == "" {
		t.Skip("set CATCHUP_MEASURE=1 to run the measurement matrix")
	}
	rt := needDocker(t)
	opts := Defaults
	if p := os.Getenv("CATCHUP_PRESET"); p != "" {
		var err error
		if opts, err = Preset(p); err != nil {
			t.Fatal(err)
		}
	}
	for env, b := range map[string]*Bytes{"CATCHUP_MEMORY_LIMIT": &opts.MemoryLimit, "CATCHUP_BACKLOG": &opts.Backlog, "CATCHUP_RATE": &opts.Rate} {
		if v := os.Getenv(env); v != "" {
			if err := b.Set(v); err != nil {
				t.Fatalf("%s: %v", env, err)
			}
		}
	}
	versions := []string{"default"}
	if v := os.Getenv("CATCHUP_VERSIONS"); v != "" {
		versions = strings.Split(v, ",")
	}
	dgs := []bool{false}
	switch os.Getenv("CATCHUP_DIRECT_GET") {
	case "on":
		dgs = []bool{true}
	case "both":
		dgs = []bool{true, false}
	}
	dir := os.Getenv("CATCHUP_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	var rows []string
	for _, v := range versions {
		if v == "default" {
			v = serverbin.DefaultVersion()
		}
		for _, dg := range dgs {
			o := opts
			o.DirectGet = dg
			name := fmt.Sprintf("%s_direct-get-%s", v, onOff(dg))
			start := time.Now()
			var crt cluster.Runtime = rt
			if preRouteLiveness(v) {
				crt = compatRuntime{rt}
			}
			res := RunCell(context.Background(), crt, cluster.Config{ServerVersion: v, RunID: "catchup-measure"}, o,
				filepath.Join(dir, name), os.Getenv("CATCHUP_KEEP_DATA") != "", &tee{t: t})
			rows = append(rows, summaryRow(name, res, time.Since(start)))
		}
	}
	t.Log("cell | verdict | wall | fill | catch-up (outcome) | settle | heal | verify | target peak RSS (x stream) | others' peak RSS | target OOM kills / restarts | acked, missing")
	for _, r := range rows {
		t.Log(r)
	}
}

// preRouteLiveness: servers before 2.11 refuse ping_interval and ping_max
// in the cluster block, which cluster.Config.Render always writes ("unknown
// field"), so their nodes exit at start.
func preRouteLiveness(v string) bool {
	var major, minor int
	fmt.Sscanf(v, "v%d.%d", &major, &minor)
	return major == 2 && minor < 11
}

// compatRuntime is a stopgap until Render leaves the route ping settings
// out for such servers: while the cluster starts it strips those two lines
// from the node configs under Dir/config. The files are bind-mounted, and
// AutoRestart (on in ClusterConfig) restarts the nodes that exited on them,
// which then read the fixed file. Route pings are then the server's
// defaults, which this workload does not depend on (no partitions).
type compatRuntime struct{ cluster.Runtime }

func (r compatRuntime) Start(ctx context.Context, cfg cluster.Config) (cluster.Cluster, error) {
	done := make(chan struct{})
	go func() {
		for {
			files, _ := filepath.Glob(filepath.Join(cfg.Dir, "config", "*.conf"))
			for _, f := range files {
				b, err := os.ReadFile(f)
				if err != nil {
					continue
				}
				var keep []string
				for _, l := range strings.Split(string(b), "\n") {
					if t := strings.TrimSpace(l); !strings.HasPrefix(t, "ping_interval:") && !strings.HasPrefix(t, "ping_max:") {
						keep = append(keep, l)
					}
				}
				if out := strings.Join(keep, "\n"); out != string(b) {
					os.WriteFile(f, []byte(out), 0o644) // in place: the bind mount follows the inode
				}
			}
			select {
			case <-done:
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
	c, err := r.Runtime.Start(ctx, cfg)
	close(done)
	return c, err
}

func summaryRow(name string, r Result, wall time.Duration) string {
	var others []string
	var tgt NodeMemory
	for _, m := range r.Memory {
		if m.Node == r.Target {
			tgt = m
		} else {
			others = append(others, fmt.Sprintf("%s %s", m.Node, Bytes(m.PeakRSS)))
		}
	}
	var oom, restarts int
	for _, d := range r.Deaths {
		if d.Node == r.Target {
			oom, restarts = d.OOMKills, d.Restarts
		}
	}
	return fmt.Sprintf("%s | %s | %.0fs | %.1fs | %.1fs (%s) | %.1fs | %.1fs | %.1fs | %s (%.2fx), usage %s | %s | %d / %d | %d, %d",
		name, r.Verdict, wall.Seconds(), r.Phase(PhaseFill).Seconds, r.CatchUp.Seconds, r.CatchUp.Outcome,
		r.Phase(PhaseSettle).Seconds, r.Phase(PhaseHeal).Seconds, r.Phase(PhaseVerify).Seconds,
		Bytes(tgt.PeakRSS), tgt.PeakRSSRatio, Bytes(tgt.PeakUsage), strings.Join(others, ", "), oom, restarts,
		r.Integrity.Acked, r.Integrity.Missing)
}
