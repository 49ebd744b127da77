package sourcesview

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/findings"
	"github.com/jetstream-chaos/jetstream-chaos/history"
	"github.com/jetstream-chaos/jetstream-chaos/record"
	"github.com/jetstream-chaos/jetstream-chaos/reports"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/sources"
)

const sec = int64(time.Second)

func ms(v int64) *int64 { return &v }

// stallCell stores a cell of one origin whose sourced copy stayed at
// origin sequence 1 of 3, in contact, for 40 s after the heal, until a
// step-down; the mirror kept up. copied 3 at the end makes a clean cell.
func stallCell(t *testing.T, stuck bool) string {
	t.Helper()
	runDir := t.TempDir()
	spec, _ := json.Marshal(record.Spec{Workload: sources.Name})
	if err := os.WriteFile(filepath.Join(runDir, record.SpecFile), spec, 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(runDir, "cell")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	o := sources.Defaults
	o.Stream, o.Origins = "S", 1
	b, _ := json.Marshal(o)
	if err := os.WriteFile(filepath.Join(dir, sources.SettingsFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	var ops []history.Op
	var msgs []sources.Message
	for i := range 3 {
		v := "p0-" + string(rune('1'+i))
		op := sources.PublishOp(sources.Publish{Origin: "S_O1", Producer: "p0", Value: v, ID: v, Attempt: 1, Seq: uint64(i + 1)}, 0, "n1")
		op.Invoke, op.Complete, op.Outcome = int64(i)*sec/10, int64(i)*sec/10+1, history.OK
		ops = append(ops, op)
		msgs = append(msgs, sources.Message{Seq: uint64(i + 1), Subject: "s.o1.p0", Value: v, ID: v, Source: "S_O1", SourceSeq: uint64(i + 1)})
	}
	ops = append(ops, history.Op{Type: history.Fault, Client: -1, Fault: "kill", Invoke: sec / 2, Complete: sec, Outcome: history.OK})
	sample := func(at int64, copied uint64) history.Op {
		s := sources.CopyState{Origins: []sources.Head{{Name: "S_O1", LastSeq: 3, Msgs: 3}}, Links: []sources.Link{
			{From: "S_O1", To: "S_MIRROR", Copied: 3, ActiveMs: ms(100)}, {From: "S_O1", To: "S_ALL", Copied: copied, ActiveMs: ms(300)}}}
		d, _ := json.Marshal(s)
		return history.Op{Type: sources.OpCopy, Invoke: at, Complete: at, Outcome: history.OK, Data: d}
	}
	end := uint64(3)
	if stuck {
		end = 1
	}
	ops = append(ops, sample(2*sec, 1), sample(20*sec, end), sample(41*sec, end), sample(45*sec, 3))
	if err := history.WriteLines(filepath.Join(dir, "history.jsonl"), ops); err != nil {
		t.Fatal(err)
	}
	reads := []sources.StreamRead{{Name: "S_O1", Role: sources.RoleOrigin, Complete: true, Msgs: 3, Messages: msgs},
		{Name: "S_MIRROR", Role: sources.RoleMirror, Complete: true, Msgs: 3, Messages: msgs},
		{Name: "S_ALL", Role: sources.RoleSourced, Complete: true, Msgs: 3, Messages: msgs}}
	b, _ = json.Marshal(reads)
	if err := os.WriteFile(filepath.Join(dir, sources.StreamsFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A stalled copy gets a finding.md section of its own class with the
// server's retry promise and the workload's streams in words; the same
// cell caught up in time gets none.
func TestFindingOfAStalledSource(t *testing.T) {
	for _, stuck := range []bool{true, false} {
		dir := stallCell(t, stuck)
		checks, err := sources.Check(dir, checker.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range checks {
			if r.Name != sources.CheckStall && r.Verdict == checker.Invalid {
				t.Errorf("%s: %s", r.Name, r.Summary)
			}
		}
		settings, _ := os.ReadFile(filepath.Join(dir, sources.SettingsFile))
		res := record.CellResult{Cell: record.Cell{Settings: settings}, Checks: checks, Verdict: record.VerdictOf(checks)}
		fs, err := findings.WriteResult(dir, res)
		if err != nil {
			t.Fatal(err)
		}
		if !stuck {
			if len(fs) != 0 {
				t.Errorf("findings %+v for a copy that caught up", fs)
			}
			continue
		}
		if len(fs) != 1 || fs[0].Class != "source-stalled" {
			t.Fatalf("findings %+v; want one source-stalled", fs)
		}
		md, _ := os.ReadFile(filepath.Join(dir, findings.FileName))
		for _, want := range []string{"stopped copying after the heal while in contact", "sourceHealthCheckInterval",
			"S_O1 -> S_ALL still held origin sequence 1 of 3 40s after the heal", "`copy-state {", "mirror `S_MIRROR` of `S_O1`", "stream `S_ALL` sourcing every origin"} {
			if !strings.Contains(string(md), want) {
				t.Errorf("finding.md lacks %q:\n%s", want, md)
			}
		}
	}
}

// Every class names a kind a sources check flags, and every kind they
// flag has a class: the kinds are read from the checks' source.
func TestEveryFlaggedKindHasAClass(t *testing.T) {
	flagged := map[string]bool{}
	files, _ := filepath.Glob(filepath.Join("..", "check_*.go"))
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(src), "\n") {
			if i := strings.Index(line, `Flag("`); i >= 0 {
				rest := line[i+len(`Flag("`):]
				flagged[rest[:strings.Index(rest, `"`)]] = true
			}
		}
	}
	classed := map[string]bool{}
	for _, c := range findings.Classes() {
		switch c.Check {
		case sources.CheckMirror, sources.CheckSource, sources.CheckStall, sources.CheckWorkQueue:
			classed[c.Check+"/"+c.Kind] = true
			if !flagged[c.Kind] {
				t.Errorf("class %s/%s, which no check flags", c.Check, c.Kind)
			}
		}
	}
	if len(flagged) != 10 || len(classed) != 11 {
		t.Errorf("read %d kinds from the checks (%v), %d classes", len(flagged), flagged, len(classed))
	}
}

// The view draws each copy's lag in messages and seconds and the copy
// graph with its counts.
func TestViewChartsAndGraph(t *testing.T) {
	c := &reports.Cell{}
	if err := (view{}).Load(stallCell(t, true), c); err != nil {
		t.Fatal(err)
	}
	d := c.Data.(*data)
	if len(d.lags) != 2 || d.lags[1].Msgs[1] != 2 || d.lags[1].Seconds[1] < 19 || d.lags[0].Msgs[1] != 0 {
		t.Errorf("lags %+v", d.lags)
	}
	s := &reports.CellSection{}
	view{}.Cell(&reports.Page{}, c, s)
	if len(s.Charts) != 2 || s.Charts[0].Kind != KindCopyLag {
		t.Errorf("charts %+v", s.Charts)
	}
	html := string(s.Extra)
	for _, want := range []string{"Copy graph", "<td>producers</td><td>&rarr;</td><td>S_O1</td><td>3</td>", "<td>S_O1</td><td>&rarr;</td><td>S_ALL</td><td>3</td><td>messages copied (by Nats-Stream-Source)</td><td>43"} {
		if !strings.Contains(html, want) {
			t.Errorf("graph lacks %q: %s", want, html)
		}
	}
}
