package kvcheck

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// rawFixture reads a malformed fixture of ../history/testdata/malformed
// without the loader's validation, as a caller holding ops in memory
// would pass them. Lines that are not JSON objects are skipped (the loader
// alone sees those). ok is false when nothing parsed.
func rawFixture(t *testing.T, path string) (h history.History, ok bool) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	stream := strings.HasSuffix(path, ".stream.jsonl")
	sc := bufio.NewScanner(f)
	for n := 0; sc.Scan(); n++ {
		if stream && n == 0 {
			continue // the header
		}
		var err error
		if stream {
			var e history.Entry
			if err = json.Unmarshal(sc.Bytes(), &e); err == nil {
				h.Stream = append(h.Stream, e)
			}
		} else {
			var o history.Op
			if err = json.Unmarshal(sc.Bytes(), &o); err == nil {
				h.Ops = append(h.Ops, o)
			}
		}
		if err != nil {
			return h, false
		}
	}
	if stream {
		h.StreamComplete = true
		h.Ops = []history.Op{{Client: 0, Type: history.Get, Key: "k", Value: "a", Rev: 1, Outcome: history.OK, Invoke: 0, Complete: 1}}
	}
	return h, len(h.Ops) > 0
}

// Every checker answers a malformed history with unknown and the bad line
// as the reason, and never panics.
func TestMalformedHistoriesAreUnknown(t *testing.T) {
	files, _ := filepath.Glob("../../history/testdata/malformed/*.jsonl")
	if len(files) == 0 {
		t.Fatal("no malformed fixtures")
	}
	tested := 0
	for _, f := range files {
		h, ok := rawFixture(t, f)
		if !ok {
			continue
		}
		err := h.Validate()
		if err == nil {
			continue // malformed only as a file: a bad header, a count
		}
		tested++
		for _, c := range All(checker.Options{}) {
			func() {
				defer func() {
					if p := recover(); p != nil {
						t.Errorf("%s: %s panicked: %v", f, c.Name(), p)
					}
				}()
				r := c.Check(h)
				if r.Verdict != checker.Unknown || r.Reason != "malformed history: "+err.Error() || strings.Contains(r.Reason, "\n") {
					t.Errorf("%s: %s: %s, reason %q; want unknown naming %q", f, c.Name(), r.Verdict, r.Reason, err)
				}
			}()
		}
	}
	t.Logf("%d malformed fixtures checked", tested)
	if tested < 14 {
		t.Errorf("only %d malformed fixtures reached the checkers", tested)
	}
}

// kvMalformed lists testdata/malformed: records the loader accepts, as any
// workload may write them, that the KV checkers cannot judge. Each names
// the line Validate must report and a phrase it must contain.
var kvMalformed = map[string]struct {
	line int
	says string
}{
	"missing_value":         {3, "update without a value"},
	"ok_write_without_rev":  {3, "ok put without a revision"},
	"ok_get_without_rev":    {3, "ok get of a value without its revision"},
	"ok_delete_without_rev": {3, "ok delete without a revision"},
}

func TestKVMalformedFixtures(t *testing.T) {
	files, _ := filepath.Glob("testdata/malformed/*.jsonl")
	if len(files) != len(kvMalformed) {
		t.Errorf("%d fixtures on disk, %d in the table", len(files), len(kvMalformed))
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		want, ok := kvMalformed[name]
		if !ok {
			t.Errorf("%s is not in the table", f)
			continue
		}
		ops, err := history.ReadOps(f)
		if err != nil {
			t.Errorf("%s: the loader rejects it: %v", f, err)
			continue
		}
		h := history.History{Ops: ops, StreamComplete: true}
		err = Validate(h)
		prefix := fmt.Sprintf("history.jsonl:%d: ", want.line)
		if err == nil || !strings.HasPrefix(err.Error(), prefix) || !strings.Contains(err.Error(), want.says) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: Validate: %v; want one line starting %q and saying %q", f, err, prefix, want.says)
			continue
		}
		for _, r := range Run(h, All(checker.Options{})) {
			if r.Verdict != checker.Unknown || r.Reason != "malformed history: "+err.Error() {
				t.Errorf("%s: %s: %s, reason %q", f, r.Name, r.Verdict, r.Reason)
			}
		}
	}
}

// The bound that used to index out of range: a get of an empty key that
// ends before it starts. Validation keeps such ops away from tighten; were
// one to get there, it is refuted, not a panic.
func TestTightenOpEndingBeforeItStarts(t *testing.T) {
	g := &linOp{kind: kGet, out: oNotFound, key: "k", call: 40, ret: 10}
	_, rs := tighten([]*linOp{g})
	if len(rs) != 1 || rs[0].op != g || !strings.Contains(rs[0].why, "before it started") {
		t.Errorf("refutations %+v", rs)
	}
}
