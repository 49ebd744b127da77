package findings

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/record"
)

var update = flag.Bool("update", false, "rewrite testdata/*/want-finding.md from the trimmed cells")

// cellDir is the one cell folder of a testdata case.
func cellDir(t *testing.T, name string) string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join("testdata", name, "*", "*", "results.json"))
	if len(m) != 1 {
		t.Fatalf("testdata/%s: want one cell, found %v", name, m)
	}
	return filepath.Dir(m[0])
}

// section is the text of one finding's section in a finding.md.
func sectionText(t *testing.T, md, class string) string {
	t.Helper()
	start := strings.Index(md, `<a id="`+class+`"></a>`)
	if start < 0 {
		t.Fatalf("no section %q", class)
	}
	s := md[start:]
	if end := strings.Index(s, "\n---\n"); end >= 0 {
		s = s[:end]
	}
	return s
}

// reportHeadings are the parts every section has, in order.
var reportHeadings = []string{"### What the client was promised", "### What happened", "### Fault windows",
	"### Server log lines within 1 s of them", "### Versions and configuration", "### Reproduce"}

// TestRealFindings renders the findings of trimmed real cells (see
// testdata/README.md): the classes each holds, each section a complete
// report with the facts the stored files hold, and the whole file as the
// golden want-finding.md.
func TestRealFindings(t *testing.T) {
	cases := []struct {
		name    string
		classes []string
		facts   map[string][]string // class -> strings its section must hold
	}{{
		name:    "failed-write-applied",
		classes: []string{"failed-write-applied", "spurious-wrong-last-sequence", "not-linearizable"},
		facts: map[string][]string{
			"failed-write-applied": {
				"## kv.Update answered \"wrong last sequence\" although the write was applied",
				"80 `kv.Update` calls answered with an error",
				"is a compare-and-set",
				"`kv.Update(\"k7\", \"c7-587\", 4964)` at 15.390 s (16:34:14.060646)",
				"| \"c7-587\" | client 7 via n2 | error 10071 \"wrong last sequence: 3161\" | 4975 | seq 4964 | 4964 (matches) |",
				"3161, is the revision of k7 that client 7's write was acknowledged with at 5.073 s",
				"returned revision 4975, \"c7-587\": the value it had just been told was not written",
				"| partition-leader | n3 | 4.255 s (16:34:02.925292) |",
				"n3 at 0.212 s (16:33:58.882264), then n2 at 10.921 s (16:34:09.591613)",
				"verified in the v2.14.5/v2.15.3 sources",
				"- nats-server: v2.15.3",
				"the log banners say Version 2.15.3 on n1, n2, n3",
				"- nats.go: v1.55.0",
				"ping_interval: \"1s\"",
				"chaos run --direct-get=off --nemesis=partition-leader --nemesis-interval=4s --runtime=docker --time-limit=20s --seed=42",
				"Without it: start 3 nats-server nodes",
			},
			"spurious-wrong-last-sequence": {"77 `kv.Update` calls were rejected with 10071", "(#failed-write-applied)"},
			"not-linearizable":             {"10 of 10 keys not linearizable"},
		},
	}, {
		name:    "lost-stream-head",
		classes: []string{"lost-stream-head", "bad-read"},
		facts: map[string][]string{
			"lost-stream-head": {
				"## Acknowledged writes lost: after the faults the stream starts at sequence 44,205",
				"46,722 of 46,737 acknowledged writes are missing",
				"1–44,204 (44,204 sequences, the head of the stream), 44,211–46,728 (2,518 sequences); 46,722 in all, as many as the lost writes",
				"| 1 | `kv.Create(\"k5\", \"c5-1\")` | client 5 via n3 | 0.370 s (16:23:08.734368) | no |",
				"| 44,205 | `kv.Update(\"k2\", \"c2-4908\", 44186)` | client 2 via n1 | 49.708 s (16:23:58.072744) | yes |",
				"| n3 | `[WRN] Catchup for stream '$G > KV_chaos' resetting first sequence: 4395 on catchup request` |",
				"Restored 35,635 messages for stream '$G > KV_chaos'",
				"| pause+kill | n1, n2 | 49.652 s",
				"- nats-server: v2.14.9",
				"--server-version=v2.14.9 --time-limit=1m0s --seed=18",
			},
			"bad-read": {"46,729 cases"},
		},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := load(cellDir(t, tc.name), nil)
			if err != nil {
				t.Fatal(err)
			}
			fs, md := render(c, testEnv)
			var got []string
			for _, f := range fs {
				got = append(got, f.Class)
			}
			if strings.Join(got, ",") != strings.Join(tc.classes, ",") {
				t.Fatalf("classes %v, want %v", got, tc.classes)
			}
			for _, f := range fs {
				sec := sectionText(t, string(md), f.Class)
				at := 0
				for _, h := range reportHeadings {
					i := strings.Index(sec[at:], "\n"+h+"\n")
					if i < 0 {
						t.Errorf("%s: no %q after byte %d", f.Class, h, at)
						continue
					}
					at += i + 1
				}
				for _, fact := range tc.facts[f.Class] {
					if !strings.Contains(sec, fact) {
						t.Errorf("%s: missing %q", f.Class, fact)
					}
				}
				if !strings.Contains(string(md), "- ["+f.Title+"](#"+f.Class+"): "+f.Summary) {
					t.Errorf("the index does not list %s", f.Class)
				}
			}
			golden := filepath.Join("testdata", tc.name, goldenName)
			if *update {
				writeFile(t, golden, md)
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if string(want) != string(md) {
				t.Errorf("finding.md differs from %s (go test -run TestRealFindings -update rewrites it):\n%s", golden, firstDiff(string(want), string(md)))
			}
		})
	}
}

// copyTree copies a testdata folder to a temporary one, so tests can write.
func copyTree(t *testing.T, from string) string {
	t.Helper()
	to := t.TempDir()
	err := filepath.Walk(from, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		writeFile(t, filepath.Join(to, rel), b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return to
}

// TestCleanCellHasNoFinding: a real cell whose checks all passed (a kill
// fault, no anomaly) gets no finding.md, and one left from before is
// removed.
func TestCleanCellHasNoFinding(t *testing.T) {
	root := copyTree(t, filepath.Join("testdata", "clean"))
	m, _ := filepath.Glob(filepath.Join(root, "*", "*", "results.json"))
	if len(m) != 1 {
		t.Fatalf("want one cell, got %v", m)
	}
	dir := filepath.Dir(m[0])
	stale := filepath.Join(dir, FileName)
	writeFile(t, stale, []byte("# an old finding\n"))
	fs, err := Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 0 {
		t.Fatalf("findings %v on a clean cell", fs)
	}
	if exists(stale) {
		t.Error("the old finding.md is still there")
	}
}

// TestVerdictsDriveFindings: a class is reported only while its check is
// invalid; with every check valid there is nothing.
func TestVerdictsDriveFindings(t *testing.T) {
	dir := filepath.Join(copyTree(t, filepath.Join("testdata", "failed-write-applied")), "20261201T163346Z-s42", "direct-get-off")
	var cell map[string]any
	b, err := os.ReadFile(filepath.Join(dir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &cell); err != nil {
		t.Fatal(err)
	}
	setVerdict := func(check, verdict string) {
		for _, c := range cell["checks"].([]any) {
			if m := c.(map[string]any); check == "" || m["name"] == check {
				m["verdict"] = verdict
			}
		}
		writeJSON(t, filepath.Join(dir, "results.json"), cell)
	}
	for _, tc := range []struct {
		check string
		want  []string
	}{
		{"stream-integrity", []string{"spurious-wrong-last-sequence", "not-linearizable"}},
		{"linearizability", []string{"spurious-wrong-last-sequence"}},
		{"", nil},
	} {
		setVerdict(tc.check, "valid")
		fs, err := Write(dir)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range fs {
			got = append(got, f.Class)
		}
		if strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("after %q valid: classes %v, want %v", tc.check, got, tc.want)
		}
		if exists(filepath.Join(dir, FileName)) != (len(tc.want) > 0) {
			t.Errorf("after %q valid: finding.md exists = %v", tc.check, !(len(tc.want) > 0))
		}
	}
}

// TestWriteResultAndWriteRun: the pipeline's call (the result given) and
// `chaos report`'s (a whole run folder) write the same file Write does.
func TestWriteResultAndWriteRun(t *testing.T) {
	root := copyTree(t, filepath.Join("testdata", "failed-write-applied"))
	runDir := filepath.Join(root, "20261201T163346Z-s42")
	dir := filepath.Join(runDir, "direct-get-off")
	read := func() string {
		b, err := os.ReadFile(filepath.Join(dir, FileName))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if _, err := Write(dir); err != nil {
		t.Fatal(err)
	}
	want := read()
	raw, err := os.ReadFile(filepath.Join(dir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	stored, err := record.DecodeCell(raw)
	if err != nil {
		t.Fatal(err)
	}
	inMemory := stored // as the pipeline has it: its folders paths, not relative to the run folder
	inMemory.Resolve(runDir)
	for _, given := range []struct {
		name   string
		result record.CellResult
	}{{"as stored", stored}, {"as in memory", inMemory}} {
		if _, err := WriteResult(dir, given.result); err != nil {
			t.Fatal(err)
		}
		if got := read(); got != want {
			t.Errorf("WriteResult(%s) wrote another file:\n%s", given.name, firstDiff(want, got))
		}
	}
	// A second cell that cannot be read is an error naming it; the good
	// cell is still written.
	writeFile(t, filepath.Join(runDir, "broken", "results.json"), []byte("{not json"))
	if err := os.Remove(filepath.Join(dir, FileName)); err != nil {
		t.Fatal(err)
	}
	byCell, err := WriteRun(runDir)
	if err == nil || !strings.Contains(err.Error(), "broken") {
		t.Errorf("WriteRun error %v, want one naming the broken cell", err)
	}
	if n := len(byCell["direct-get-off"]); n != 3 {
		t.Errorf("WriteRun: %d findings for direct-get-off, want 3", n)
	}
	if got := read(); got != want {
		t.Errorf("WriteRun wrote another file:\n%s", firstDiff(want, got))
	}
}

// TestOldCellReadAsStored: a cell's results.json is read as it is. A
// catch-up cell of an old run carries kv-update's zero options as
// cells[].workload, which record's decoders of old shapes would make its
// settings: a finding would then describe a workload the run did not have.
func TestOldCellReadAsStored(t *testing.T) {
	dir := filepath.Join("testdata", "legacy-catchup-cell")
	c, err := load(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.res.Settings != nil || c.res.Name != "v2.11.8_direct-get-on" || !c.res.DirectGet {
		t.Errorf("read %q (direct get %v) with settings %s, want v2.11.8_direct-get-on with none", c.res.Name, c.res.DirectGet, c.res.Settings)
	}
	if line := c.workloadLine(); strings.Contains(line, "bucket") {
		t.Errorf("the workload line describes kv-update's zero options: %q", line)
	}
}

func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	if _, err := Write(dir); err == nil {
		t.Error("no error for a folder without results.json")
	}
	writeFile(t, filepath.Join(dir, "results.json"), []byte(`{"checks": 3}`))
	if _, err := Write(dir); err == nil || !strings.Contains(err.Error(), "results.json") {
		t.Errorf("error %v, want one naming results.json", err)
	}
	ok := `{"client":1,"type":"get","key":"k","outcome":"ok","invoke":1,"complete":2}`
	writeFile(t, filepath.Join(dir, "history.jsonl"), []byte(ok+"\nnot json\n"+ok+"\n"))
	// With nothing invalid there is no finding, and the history is not read.
	writeFile(t, filepath.Join(dir, "results.json"), []byte(`{"name":"x","checks":[]}`))
	if fs, err := Write(dir); err != nil || len(fs) != 0 {
		t.Errorf("findings %v, error %v, for a cell with nothing invalid", fs, err)
	}
	writeFile(t, filepath.Join(dir, "results.json"), []byte(`{"name":"x","checks":[{"name":"stale-read","verdict":"invalid","counts":{}}]}`))
	if _, err := Write(dir); err == nil || !strings.Contains(err.Error(), "history.jsonl:2") {
		t.Errorf("error %v, want one naming history.jsonl:2", err)
	}
}

// A history too long to read whole gives the finding it gives whole:
// only the cited keys' ops are read, and every lookup is within a key.
func TestLongHistoryReadByKey(t *testing.T) {
	for _, name := range []string{"failed-write-applied", "lost-stream-head"} {
		t.Run(name, func(t *testing.T) {
			dir := cellDir(t, name)
			_, whole, err := Build(dir)
			if err != nil {
				t.Fatal(err)
			}
			// The same cell with ops of a key no example names, at the end.
			root := copyTree(t, filepath.Join("testdata", name))
			m, _ := filepath.Glob(filepath.Join(root, "*", "*", "results.json"))
			long := filepath.Dir(m[0])
			f, err := os.OpenFile(filepath.Join(long, "history.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString(`{"client":99,"type":"get","key":"uncited","outcome":"ok","value":"u","rev":1,"invoke":1,"complete":2}` + "\n" +
				`{"client":99,"type":"update","key":"uncited","value":"u2","expected_rev":1,"outcome":"fail","err":"wrong_last_seq","err_code":10071,"err_seq":2,"invoke":3,"complete":4}` + "\n")
			f.Close()
			defer func(n int) { wholeHistoryOps = n }(wholeHistoryOps)
			wholeHistoryOps = 1
			_, byKey, err := Build(long)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(byKey), "uncited") {
				t.Error("the finding read a key no example names")
			}
			if len(whole) == 0 || string(byKey) != string(whole) {
				t.Errorf("the finding differs when read by key:\n%s", firstDiff(string(whole), string(byKey)))
			}
		})
	}
}
