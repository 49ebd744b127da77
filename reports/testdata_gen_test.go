package reports

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/checker/kvcheck"
	"github.com/jetstream-chaos/jetstream-chaos/history"
	"github.com/jetstream-chaos/jetstream-chaos/record"
	"github.com/jetstream-chaos/jetstream-chaos/reports/reportstest"
	"github.com/jetstream-chaos/jetstream-chaos/watch"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/kvupdate"
)

// TestMakeTestdata trims a real stored run into testdata/run.tar.gz (a
// folder "run" inside; tests unpack it with unpackRun): it keeps the
// ops and stream entries of the keys in $CHAOS_TESTDATA_KEYS (default k0)
// and the fault records, copies logs and configs, and checks the trimmed
// histories again so every number in results.json matches the files
// (trimCell). It runs only when asked:
//
//	CHAOS_TESTDATA_FROM=store/<run-id> go test ./reports -run TestMakeTestdata
//
// Checkers are per key and per client, so dropping keys keeps each kept
// key's history whole and the verdicts real.
func TestMakeTestdata(t *testing.T) {
	src := os.Getenv("CHAOS_TESTDATA_FROM")
	if src == "" {
		t.Skip("set CHAOS_TESTDATA_FROM=store/<run-id> to rebuild testdata/run from a stored run")
	}
	keys := map[string]bool{}
	for _, k := range strings.Split(envOr("CHAOS_TESTDATA_KEYS", "k0"), ",") {
		keys[k] = true
	}
	dst := filepath.Join(t.TempDir(), "run")
	res := readStoredResult(t, src)
	// Paths as a run in the default store would have them.
	res.Dir = "store/" + res.ID
	for i := range res.Cells {
		c := &res.Cells[i]
		c.Dir, c.Cluster.Dir = res.Dir+"/"+c.Name, res.Dir+"/"+c.Name
		trimCell(t, src, dst, c, keys, readBack)
	}
	writeTrimmedRun(t, dst, res)
	if err := reportstest.PackDir(filepath.Dir(dst), "run", testRunArchive); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s rebuilt from %s with keys %v: %s", testRunArchive, src, keys, Headline(res))
}

// TestMakeTriggeredTestdata trims a real watched run into
// testdata/triggered.tar.gz (see testdata/README.md) as TestMakeTestdata
// does, keeping key k0, the fault records and events.jsonl; its stream is
// what the observers saw of k0 (observedStream), and the folders stay as
// the run stored them (relative). It runs only when asked:
//
//	CHAOS_TRIGGERED_FROM=store/<run-id> go test ./reports -run TestMakeTriggeredTestdata
func TestMakeTriggeredTestdata(t *testing.T) {
	src := os.Getenv("CHAOS_TRIGGERED_FROM")
	if src == "" {
		t.Skip("set CHAOS_TRIGGERED_FROM=store/<run-id> to rebuild testdata/triggered from a stored run")
	}
	dst := filepath.Join(t.TempDir(), "triggered")
	res := readStoredResult(t, src)
	for i := range res.Cells {
		trimCell(t, src, dst, &res.Cells[i], map[string]bool{"k0": true}, observedStream)
	}
	writeTrimmedRun(t, dst, res)
	if err := reportstest.PackDir(filepath.Dir(dst), "triggered", triggeredArchive); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s rebuilt from %s: %s", triggeredArchive, src, Headline(res))
}

// readStoredResult reads a stored run's results.json, its rerun command
// as a run in the default store would have it.
func readStoredResult(t *testing.T, src string) record.Result {
	b, err := os.ReadFile(filepath.Join(src, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := record.DecodeResult(b)
	if err != nil {
		t.Fatal(err)
	}
	res.Spec.Store = "store"
	res.Command = storeFlag.ReplaceAllString(res.Command, "")
	res.Spec.Command = res.Command
	return res
}

// writeTrimmedRun writes the run's results.json, its verdict the worst of
// its trimmed cells', and run.json.
func writeTrimmedRun(t *testing.T, dst string, res record.Result) {
	res.Verdict = record.Valid
	for _, c := range res.Cells {
		res.Verdict = record.Worse(res.Verdict, c.Verdict)
	}
	reportstest.WriteJSON(t, filepath.Join(dst, "results.json"), res)
	reportstest.WriteJSON(t, filepath.Join(dst, "run.json"), res.Spec)
}

// streamOf reads the stream the checkers judge from a stored cell's
// folder, and whether it is complete.
type streamOf func(cellDir string) ([]history.Entry, bool, error)

// readBack is the stream as read back after the heal (stream.jsonl).
func readBack(cellDir string) ([]history.Entry, bool, error) {
	return history.ReadStream(filepath.Join(cellDir, "stream.jsonl"))
}

// observedStream is every message the run's observers saw
// (observed.jsonl): a bucket keeping fewer revisions than were written
// (--history 1) holds only each key's last one after the heal, and the
// kv-update workload judges its read-back merged with them. Complete when
// no sequence up to the stream's last went unseen.
func observedStream(cellDir string) ([]history.Entry, bool, error) {
	entries, head, err := kvupdate.ReadObserved(filepath.Join(cellDir, kvupdate.ObservedFile))
	return entries, err == nil && head.Missing == 0, err
}

// trimCell writes cell c of the stored run src into dst keeping only the
// ops and stream entries of keys (and the fault records), with its logs,
// configs and events.jsonl, and checks the trimmed history again so every
// number in its results.json matches the files. Checks that read files
// not kept (the read-back, the replicas) are left out; recovery is kept.
func trimCell(t *testing.T, src, dst string, c *record.CellResult, keys map[string]bool, stream streamOf) {
	from, to := filepath.Join(src, c.Name), filepath.Join(dst, c.Name)
	for _, sub := range []string{"logs", "config"} {
		reportstest.CopyDir(t, filepath.Join(from, sub), filepath.Join(to, sub))
	}
	ops, err := history.ReadOps(filepath.Join(from, "history.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var kept []history.Op
	for _, o := range ops {
		if o.Type == history.Fault || keys[o.Key] {
			kept = append(kept, o)
		}
	}
	reportstest.WriteJSONLines(t, filepath.Join(to, "history.jsonl"), kept)
	entries, complete, err := stream(from)
	if err != nil {
		t.Fatal(err)
	}
	var keptEntries []history.Entry
	for _, e := range entries {
		if keys[e.Key] {
			keptEntries = append(keptEntries, e)
		}
	}
	if err := history.WriteStream(filepath.Join(to, "stream.jsonl"), keptEntries, complete); err != nil {
		t.Fatal(err)
	}
	h := history.History{Ops: kept, Stream: keptEntries, StreamComplete: complete}
	var recovery []checker.Result
	for _, r := range c.Checks {
		if r.Name == checker.NameRecovery {
			recovery = append(recovery, r)
		}
	}
	opts := checker.Options{OutDir: filepath.Join(to, "porcupine"), MaxVisualizations: 2, Timeout: time.Minute}
	c.Checks = append(kvcheck.Run(h, kvcheck.All(opts)), recovery...)
	for j := range c.Checks {
		for k, f := range c.Checks[j].Files {
			c.Checks[j].Files[k] = filepath.ToSlash(filepath.Join(c.Dir, "porcupine", filepath.Base(f)))
		}
	}
	c.Verdict = record.VerdictOf(c.Checks)
	c.Ops = record.CountOps(kept, time.Duration(c.Phases["workload"]*float64(time.Second)))
	c.Stream.Entries, c.Stream.Complete = len(keptEntries), complete
	reportstest.WriteJSON(t, filepath.Join(to, "results.json"), c)
	if _, err := os.Stat(filepath.Join(from, watch.EventsFile)); err == nil {
		reportstest.CopyFile(t, filepath.Join(from, watch.EventsFile), filepath.Join(to, watch.EventsFile))
	}
}

var storeFlag = regexp.MustCompile(` --store=\S+`)

// testRunArchive is where TestMakeTestdata writes the run: the package
// that embeds it for every test.
var testRunArchive = filepath.Join("reportstest", reportstest.KVRunArchive)

func envOr(k, d string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return d
}
