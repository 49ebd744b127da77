package kvupdate

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/checker/replicas"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// simCell describes a synthetic kv-update cell: clients that each own
// keys and read before they update, on a bucket that keeps perKey
// revisions, every message seen by the observers.
type simCell struct {
	ops, keys, clients, perKey int
	staleRate                  float64 // share of gets that return the key's previous revision
	lose                       int     // every lose-th acknowledged write is stored with another value
	reuse                      bool    // the read-back holds the last message under another key
	seed                       uint64
}

// write stores the cell in dir as a run would: history.jsonl,
// stream.jsonl (the read-back), observed.jsonl and bucket.json.
func (c simCell) write(t testing.TB, dir string) {
	t.Helper()
	r := rand.New(rand.NewPCG(c.seed, 7))
	rec, err := history.NewRecorder(filepath.Join(dir, "history.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	type version struct {
		rev   uint64
		value string
	}
	vers := make([][]version, c.keys)
	var observed []history.Entry
	seq, now := uint64(0), int64(0)
	got := make([]version, c.clients) // what each client's last get returned
	gotKey := make([]int, c.clients)  // and of which key: its update follows
	wrote, steps := make([]int, c.clients), make([]int, c.clients)
	for i := 0; i < c.ops; i++ {
		cl := r.IntN(c.clients)
		reading := steps[cl]%2 == 0 // each client reads, then updates what it read
		steps[cl]++
		if reading {
			gotKey[cl] = (cl + c.clients*r.IntN(max(1, c.keys/c.clients))) % c.keys
		}
		k := gotKey[cl]
		key := fmt.Sprintf("k%d", k)
		now += 1000
		op := history.Op{Client: cl, Node: fmt.Sprintf("n%d", 1+cl%3), Key: key, Invoke: now, Complete: now + 200 + r.Int64N(500)}
		cur := version{}
		if n := len(vers[k]); n > 0 {
			cur = vers[k][n-1]
		}
		if reading {
			op.Type, op.Outcome = history.Get, history.OK
			v := cur
			if n := len(vers[k]); n > 1 && r.Float64() < c.staleRate {
				v = vers[k][n-2]
			}
			if v.rev == 0 {
				op.Err = history.ErrNotFound
			}
			op.Rev, op.Value, got[cl] = v.rev, v.value, v
		} else {
			wrote[cl]++
			op.Type, op.Value, op.ExpectedRev = history.Update, fmt.Sprintf("c%d-%d", cl, wrote[cl]), got[cl].rev
			if got[cl].rev != cur.rev {
				op.Outcome, op.Err, op.ErrCode, op.ErrSeq = history.Fail, history.ErrWrongLastSeq, 10071, cur.rev
			} else {
				seq++
				op.Outcome, op.Rev = history.OK, seq
				vers[k] = append(vers[k], version{seq, op.Value})
				e := history.Entry{Seq: seq, Key: key, Value: op.Value}
				if c.lose > 0 && seq%uint64(c.lose) == 0 {
					e.Value += "-other"
				}
				observed = append(observed, e)
			}
		}
		now = op.Complete
		rec.Add(op)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	var readBack []history.Entry
	for _, e := range observed {
		vs := vers[keyIndex(e.Key)]
		for _, v := range vs[max(0, len(vs)-c.perKey):] {
			if v.rev == e.Seq {
				readBack = append(readBack, e)
			}
		}
	}
	if c.reuse && len(readBack) > 0 {
		e := &readBack[len(readBack)-1]
		e.Key = fmt.Sprintf("k%d", (keyIndex(e.Key)+1)%c.keys) // the sequence the observers saw under another key
	}
	if err := history.WriteStream(filepath.Join(dir, "stream.jsonl"), readBack, true); err != nil {
		t.Fatal(err)
	}
	head := ObservedHead{LastSeq: seq, Count: len(observed), Missing: int(seq) - len(observed)}
	if err := WriteObserved(filepath.Join(dir, ObservedFile), head, observed); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(Bucket{Stream: "KV_chaos", History: History(c.perKey), MaxMsgsPerSubject: int64(c.perKey), Mix: DefaultMix})
	if err := os.WriteFile(filepath.Join(dir, BucketFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func keyIndex(key string) int {
	var k int
	fmt.Sscanf(key, "k%d", &k)
	return k
}

// A cell judged in parts gets the judgement it gets whole, with examples
// that name the whole history's ops, and leaves no part files behind.
func TestCheckDirInParts(t *testing.T) {
	cells := map[string]simCell{
		"clean":      {ops: 6000, keys: 40, clients: 10, perKey: 1, seed: 1},
		"stale":      {ops: 6000, keys: 40, clients: 10, perKey: 1, staleRate: 0.05, seed: 2},
		"lost":       {ops: 6000, keys: 40, clients: 10, perKey: 1, lose: 97, seed: 3},
		"few keys":   {ops: 3000, keys: 3, clients: 3, perKey: 5, staleRate: 0.02, seed: 4},
		"hot in one": {ops: 2000, keys: 1, clients: 1, perKey: 1, seed: 5},
		"reused seq": {ops: 3000, keys: 20, clients: 10, perKey: 1, reuse: true, seed: 6},
	}
	for name, c := range cells {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			c.write(t, dir)
			if err := os.MkdirAll(filepath.Join(dir, ".parts-killed", "part-0"), 0o755); err != nil {
				t.Fatal(err) // what a check killed half-way leaves
			}
			whole, err := CheckDir(dir, checker.Options{PartOps: -1, Timeout: -1, MaxVisualizations: -1})
			if err != nil {
				t.Fatal(err)
			}
			ops, err := history.ReadOps(filepath.Join(dir, "history.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			for _, partOps := range []int{c.ops / 2, c.ops / 7} {
				parts, err := CheckDir(dir, checker.Options{PartOps: partOps, Timeout: -1, MaxVisualizations: -1})
				if err != nil {
					t.Fatal(err)
				}
				if len(parts) != len(whole) {
					t.Fatalf("%d results in parts, %d whole", len(parts), len(whole))
				}
				for i := range whole {
					samePartsJudgement(t, whole[i], parts[i], ops)
				}
			}
			if left, _ := filepath.Glob(filepath.Join(dir, ".parts-*")); len(left) > 0 {
				t.Fatalf("part folders left behind: %v", left)
			}
			if name == "stale" || name == "lost" || name == "reused seq" {
				if checker.Worst(whole) != checker.Invalid {
					t.Fatalf("the %s cell is %s whole: the test would show nothing", name, checker.Worst(whole))
				}
			}
		})
	}
}

func samePartsJudgement(t *testing.T, whole, parts checker.Result, ops []history.Op) {
	t.Helper()
	if whole.Name != parts.Name || whole.Verdict != parts.Verdict || whole.Summary != parts.Summary || whole.Reason != parts.Reason {
		t.Errorf("%s: whole %s %q; in parts %s %q", whole.Name, whole.Verdict, whole.Summary, parts.Verdict, parts.Summary)
	}
	if !reflect.DeepEqual(whole.Counts, parts.Counts) || !reflect.DeepEqual(whole.Stats, parts.Stats) {
		t.Errorf("%s: counts/stats whole %v %v, in parts %v %v", whole.Name, whole.Counts, whole.Stats, parts.Counts, parts.Stats)
	}
	kinds := map[string]int{}
	for _, a := range whole.Anomalies {
		kinds[a.Kind]++
	}
	for _, a := range parts.Anomalies {
		kinds[a.Kind]--
		for _, ref := range a.Ops {
			if ref.Index < 0 || ref.Index >= len(ops) || !reflect.DeepEqual(ref.Op, ops[ref.Index]) {
				t.Errorf("%s: example %q names op %d, not the whole history's", whole.Name, a.Description, ref.Index)
			}
		}
	}
	for k, d := range kinds {
		if d != 0 {
			t.Errorf("%s: %d more %s examples whole than in parts", whole.Name, d, k)
		}
	}
}

// A cell where a sequence is read across parts is judged whole; one whose
// observed.jsonl was cut short is refused, as it is whole.
func TestCheckInPartsRefuses(t *testing.T) {
	dir := t.TempDir()
	simCell{ops: 2000, keys: 20, clients: 10, perKey: 1, reuse: true, seed: 6}.write(t, dir)
	cut, err := cutCell(dir, t.TempDir(), 4, Bucket{History: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(cut.split.Crossed(), "held by keys of two parts") {
		t.Fatalf("Crossed() = %q, want a sequence held by two parts", cut.split.Crossed())
	}

	dir = t.TempDir()
	simCell{ops: 2000, keys: 20, clients: 10, perKey: 1, seed: 7}.write(t, dir)
	path := filepath.Join(dir, ObservedFile)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSuffix(string(b), "\n"), "\n")
	if err := os.WriteFile(path, []byte(strings.Join(lines[:len(lines)-1], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, partOps := range []int{-1, 500} {
		if _, err := CheckDir(dir, checker.Options{PartOps: partOps}); err == nil || !strings.Contains(err.Error(), "the head says") {
			t.Errorf("PartOps %d: error %v, want one saying the file is short", partOps, err)
		}
	}
}

// hugeSeqCell writes the audit's b3c cell with gets ops after the put: a
// put acknowledged at revision 10^12, then gets of it, the stream holding
// that one message (a stream may start at any first sequence), no
// observed.jsonl.
func hugeSeqCell(t *testing.T, dir string, gets int) {
	t.Helper()
	const s = uint64(1_000_000_000_000)
	rec, err := history.NewRecorder(filepath.Join(dir, "history.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	rec.Add(history.Op{Client: 0, Node: "n1", Type: history.Put, Key: "k0", Value: "c0-1", Rev: s, Outcome: history.OK, Invoke: 1000, Complete: 2000})
	for i := range int64(gets) {
		rec.Add(history.Op{Client: 0, Node: "n1", Type: history.Get, Key: "k0", Value: "c0-1", Rev: s, Outcome: history.OK,
			Invoke: 3000 + 2*i, Complete: 3001 + 2*i})
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if err := history.WriteStream(filepath.Join(dir, "stream.jsonl"), []history.Entry{{Seq: s, Key: "k0", Value: "c0-1"}}, true); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(Bucket{Stream: "KV_chaos", History: 1, MaxMsgsPerSubject: 1, Mix: Mix{Update: 100}})
	if err := os.WriteFile(filepath.Join(dir, BucketFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// A stream at sequence 10^12 is judged in parts in bounded memory (the
// split once made a slot per sequence up to the largest) and as it is
// judged whole.
func TestCheckInPartsHugeSequence(t *testing.T) {
	dir := t.TempDir()
	hugeSeqCell(t, dir, 300)
	whole, err := CheckDir(dir, checker.Options{PartOps: -1, Timeout: -1, MaxVisualizations: -1})
	if err != nil {
		t.Fatal(err)
	}
	ops, err := history.ReadOps(filepath.Join(dir, "history.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	parts, err := CheckDir(dir, checker.Options{PartOps: 100, Timeout: -1, MaxVisualizations: -1})
	if err != nil {
		t.Fatal(err)
	}
	for i := range whole {
		samePartsJudgement(t, whole[i], parts[i], ops)
		// Its sequences below 10^12 nobody saw, and no op needs them; no
		// replicas were stored.
		if want := checker.Valid; whole[i].Name != replicas.NameDivergence && whole[i].Verdict != want {
			t.Errorf("%s: %s (%s), want %s", whole[i].Name, whole[i].Verdict, whole[i].Summary, want)
		}
	}
}
