package catchup

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

// RunCell is one whole cell: it starts a cluster on rt from base (version,
// run id; Dir is set to dir) as ClusterConfig says, runs Run, closes the
// cluster (which saves the node logs into dir/logs), counts the log lines
// of interest, and deletes the node stores unless keepData: at the report's
// scale they are tens of GB. The Result is saved in dir as catchup.json.
func RunCell(ctx context.Context, rt cluster.Runtime, base cluster.Config, opts Options, dir string, keepData bool, out io.Writer) Result {
	opts = opts.WithDefaults()
	cfg := opts.ClusterConfig(base)
	cfg.Dir = dir
	if err := opts.Refuse(rt.Supports); err != nil {
		return failed(opts, rt.Name(), cfg, dir, err, out)
	}
	if err := opts.Validate(max(cfg.Nodes, 3)); err != nil {
		return failed(opts, rt.Name(), cfg, dir, err, out)
	}
	fmt.Fprintf(out, "  catchup: starting a %d-node cluster (nats-server %s) in %s\n", cfg.Nodes, orDefault(cfg.ServerVersion), dir)
	c, err := rt.Start(ctx, cfg)
	if err != nil {
		return failed(opts, rt.Name(), cfg, dir, fmt.Errorf("start cluster: %w", err), out)
	}
	res := runCell(ctx, c, opts, dir, out, false)
	// Close on a fresh context: it must run after Ctrl-C too.
	cctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := c.Close(cctx); err != nil {
		res.Notes = append(res.Notes, "close cluster: "+err.Error())
	}
	var names []string
	for _, n := range res.Nodes {
		names = append(names, n.Name)
	}
	res.LogLines = ScanLogs(filepath.Join(c.Config().Dir, "logs"), names)
	if !keepData {
		if err := os.RemoveAll(filepath.Join(c.Config().Dir, "data")); err != nil {
			res.Notes = append(res.Notes, "delete stores: "+err.Error())
		}
	}
	if err := Save(dir, res); err != nil {
		res.Notes = append(res.Notes, "save results: "+err.Error())
	}
	Print(out, res)
	return res
}

func orDefault(v string) string {
	if v == "" {
		return "(pinned default)"
	}
	return v
}

func failed(opts Options, runtime string, cfg cluster.Config, dir string, err error, out io.Writer) Result {
	r := Result{Options: opts, Runtime: runtime, Cluster: cfg, ServerVersion: cfg.ServerVersion, Dir: dir,
		StartedAt: time.Now(), Error: err.Error(), TargetRole: opts.Target}
	r.Checks = []checker.Result{result("harness", checker.Unknown, err.Error(), nil)}
	r.Verdict = checker.Unknown
	if dir != "" {
		_ = os.MkdirAll(dir, 0o755)
		_ = Save(dir, r)
	}
	Print(out, r)
	return r
}

func itoa(i int) string { return strconv.Itoa(i) }
