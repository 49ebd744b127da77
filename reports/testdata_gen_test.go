package reports

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/history"
	"github.com/jetstream-chaos/jetstream-chaos/reports/reportstest"
	"github.com/jetstream-chaos/jetstream-chaos/run"
)

// TestMakeTestdata trims a real stored run into testdata/run.tar.gz (a
// folder "run" inside; tests unpack it with unpackRun): it keeps the
// ops and stream entries of the keys in $CHAOS_TESTDATA_KEYS (default k0)
// and the fault records, copies logs and configs, and checks the trimmed
// histories again so every number in results.json matches the files. It
// runs only when asked:
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
	var res run.Result
	b, err := os.ReadFile(filepath.Join(src, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := decodeResult(b, &res); err != nil {
		t.Fatal(err)
	}
	// Paths and the command as a run in the default store would have them.
	res.Dir, res.Spec.Store = "store/"+res.ID, "store"
	res.Command = storeFlag.ReplaceAllString(res.Command, "")
	res.Spec.Command = res.Command
	for i := range res.Cells {
		c := &res.Cells[i]
		c.Dir, c.Cluster.Dir = res.Dir+"/"+c.Name, res.Dir+"/"+c.Name
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
		entries, complete, err := history.ReadStream(filepath.Join(from, "stream.jsonl"))
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
		c.Checks = append(checker.Run(h, checker.All(opts)), recovery...)
		for j := range c.Checks {
			for k, f := range c.Checks[j].Files {
				c.Checks[j].Files[k] = filepath.ToSlash(filepath.Join(c.Dir, "porcupine", filepath.Base(f)))
			}
		}
		c.Verdict = run.VerdictOf(c.Checks)
		c.Ops = run.CountOps(kept, time.Duration(c.Phases["workload"]*float64(time.Second)))
		c.Stream.Entries, c.Stream.Complete = len(keptEntries), complete
		reportstest.WriteJSON(t, filepath.Join(to, "results.json"), c)
	}
	res.Verdict = run.Valid
	for _, c := range res.Cells {
		res.Verdict = run.Worse(res.Verdict, c.Verdict)
	}
	reportstest.WriteJSON(t, filepath.Join(dst, "results.json"), res)
	reportstest.WriteJSON(t, filepath.Join(dst, "run.json"), res.Spec)
	if err := reportstest.PackDir(filepath.Dir(dst), "run", testRunArchive); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s rebuilt from %s with keys %v: %s", testRunArchive, src, keys, Headline(res))
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
