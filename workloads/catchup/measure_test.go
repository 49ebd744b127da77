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
			res := RunCell(context.Background(), rt, cluster.Config{ServerVersion: v, RunID: "catchup-measure"}, o,
				filepath.Join(dir, name), os.Getenv("CATCHUP_KEEP_DATA") != "", &tee{t: t})
			rows = append(rows, summaryRow(name, res, time.Since(start)))
		}
	}
	t.Log("cell | verdict | wall | fill | catch-up (outcome) | settle | heal | verify | target peak RSS (x stream) | others' peak RSS | target OOM kills / restarts | acked, missing")
	for _, r := range rows {
		t.Log(r)
	}
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
