package findings

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// testEnv is the binary a golden finding was rendered by: the versions
// that were true when the testdata cells ran (see testdata/README.md).
var testEnv = env{clientVersion: "v1.55.0", goVersion: "go1.26.8", serverGo: func(string) string { return "go1.26.8" }}

var storeFlag = regexp.MustCompile(` --store=\S+`)

// TestMakeTestdata trims a stored cell into testdata/<name>/<run-id>/<cell>/.
// It runs only when asked:
//
//	CHAOS_FINDINGS_FROM=store/<run-id>/<cell> CHAOS_FINDINGS_NAME=failed-write-applied go test ./findings -run TestMakeTestdata
//
// It keeps the cell's results.json and configs whole, and of history.jsonl,
// stream.jsonl and the logs only what the finding reads (recorded while it
// renders the full cell) plus every op results.json cites, the fault
// records and each log's first lines. It then renders the trimmed cell
// and fails unless that gives the same finding as the full one, and
// writes it as the golden want-finding.md. The rerun command and store
// paths read as a run in the default store/.
func TestMakeTestdata(t *testing.T) {
	src, name := os.Getenv("CHAOS_FINDINGS_FROM"), os.Getenv("CHAOS_FINDINGS_NAME")
	if src == "" || name == "" {
		t.Skip("set CHAOS_FINDINGS_FROM=store/<run-id>/<cell> and CHAOS_FINDINGS_NAME=<case> to rebuild testdata/<case>")
	}
	src = filepath.Clean(src)
	full, err := load(src, nil)
	if err != nil {
		t.Fatal(err)
	}
	full.used = newUsage()
	full.run.Command = storeFlag.ReplaceAllString(full.run.Command, "")
	fs, want := render(full, testEnv)
	if len(fs) == 0 {
		// A clean cell: keep enough history to be a history.
		for i := 0; i < len(full.ops) && i < 200; i++ {
			full.markOp(&full.ops[i])
		}
	}

	root := filepath.Join("testdata", name)
	if err := os.RemoveAll(root); err != nil {
		t.Fatal(err)
	}
	runDir := filepath.Join(root, filepath.Base(filepath.Dir(src)))
	dst := filepath.Join(runDir, filepath.Base(src))
	store := filepath.Dir(filepath.Dir(src)) + "/"
	writeRunFiles(t, filepath.Dir(src), runDir, store)
	copyRewritten(t, filepath.Join(src, "results.json"), filepath.Join(dst, "results.json"), store)
	for node, conf := range full.configs {
		writeFile(t, filepath.Join(dst, "config", node+".conf"), []byte(conf))
	}
	writeHistory(t, full, filepath.Join(dst, "history.jsonl"))
	writeStream(t, full, filepath.Join(dst, "stream.jsonl"))
	writeLogs(t, full, src, dst)

	trimmed, err := load(dst, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, got := render(trimmed, testEnv)
	if !bytes.Equal(got, want) {
		writeFile(t, filepath.Join(t.TempDir(), "full.md"), want)
		t.Fatalf("the trimmed cell renders another finding than the full one:\n%s", firstDiff(string(want), string(got)))
	}
	if len(fs) > 0 {
		writeFile(t, filepath.Join(root, goldenName), got)
	}
	t.Logf("wrote %s (%d bytes of finding)", root, len(got))
}

const goldenName = "want-finding.md"

func writeRunFiles(t *testing.T, from, to, store string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(from, "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	var spec map[string]any
	if err := json.Unmarshal(b, &spec); err != nil {
		t.Fatal(err)
	}
	spec["store"] = "store"
	spec["command"] = storeFlag.ReplaceAllString(fmt.Sprint(spec["command"]), "")
	writeJSON(t, filepath.Join(to, "run.json"), spec)
	var res map[string]any
	b, err = os.ReadFile(filepath.Join(from, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	kept := map[string]any{"command": spec["command"], "dir": "store/" + filepath.Base(from)}
	for _, k := range []string{"id", "seed", "runtime", "client_version", "started_at", "verdict"} {
		kept[k] = res[k]
	}
	writeJSON(t, filepath.Join(to, "results.json"), kept)
}

func copyRewritten(t *testing.T, from, to, store string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, to, bytes.ReplaceAll(b, []byte(store), []byte("store/")))
}

// writeHistory keeps the ops the finding read, every op results.json
// cites, and the fault records, in their order.
func writeHistory(t *testing.T, c *cell, path string) {
	t.Helper()
	keep := map[string]bool{}
	for id := range c.used.ops {
		keep[id] = true
	}
	for _, r := range c.res.Checks {
		for _, a := range r.Anomalies {
			for _, ref := range a.Ops {
				keep[opID(ref.Op)] = true
			}
		}
	}
	var b bytes.Buffer
	for _, o := range c.ops {
		if keep[opID(o)] || o.Type == history.Fault {
			line, err := json.Marshal(o)
			if err != nil {
				t.Fatal(err)
			}
			b.Write(append(line, '\n'))
		}
	}
	writeFile(t, path, b.Bytes())
}

// writeStream keeps the whole stream when the finding needs it (or it is
// short), else the entries it read and those results.json cites.
func writeStream(t *testing.T, c *cell, path string) {
	t.Helper()
	keep := c.used.entries
	for _, r := range c.res.Checks {
		for _, a := range r.Anomalies {
			for _, e := range a.Entries {
				keep[e.Seq] = true
			}
		}
	}
	whole := c.used.wholeStream || len(c.stream) <= 100
	head := streamHead{Complete: c.head.Complete, Count: c.head.Count, Trimmed: !whole}
	var b bytes.Buffer
	line, _ := json.Marshal(head)
	b.Write(append(line, '\n'))
	for _, e := range c.stream {
		if whole || keep[e.Seq] {
			line, _ := json.Marshal(e)
			b.Write(append(line, '\n'))
		}
	}
	writeFile(t, path, b.Bytes())
}

// writeLogs keeps each log's first lines (the banner) and the lines the
// finding read.
func writeLogs(t *testing.T, c *cell, src, dst string) {
	t.Helper()
	const banner = 30
	for _, node := range c.nodes {
		f, err := os.Open(filepath.Join(src, "logs", node+".log"))
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for no := 1; sc.Scan(); no++ {
			if no <= banner || c.used.lines[node][no] {
				b.Write(append(sc.Bytes(), '\n'))
			}
		}
		f.Close()
		writeFile(t, filepath.Join(dst, "logs", node+".log"), b.Bytes())
	}
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, append(b, '\n'))
}

func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// firstDiff shows the first line where two texts differ.
func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return fmt.Sprintf("line %d:\n- %s\n+ %s", i+1, x, y)
		}
	}
	return "(no difference)"
}
