package findings

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/checker/replicas"
	"github.com/jetstream-chaos/jetstream-chaos/history"
	"github.com/jetstream-chaos/jetstream-chaos/record"
)

func TestParseLog(t *testing.T) {
	log := "garbage before the first time\n" +
		"[1] 2026/12/01 16:03:44.129274 [INF] Starting nats-server\n" +
		"2026/12/01 16:03:45.000001 [WRN] no pid prefix\n" +
		"a continued line\n" +
		"\n" +
		"[7] 2026/12/01 16:03:46.500000 [ERR] last\n"
	got := parseLog(log, time.UTC)
	want := []struct {
		no   int
		at   string
		text string
	}{
		{2, "16:03:44.129274", "[INF] Starting nats-server"},
		{3, "16:03:45.000001", "no pid prefix"},
		{4, "16:03:45.000001", "a continued line"},
		{6, "16:03:46.500000", "[ERR] last"},
	}
	if len(got) != len(want) {
		t.Fatalf("%d lines, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		if g.No != w.no || clock(g.Time) != w.at || !strings.HasSuffix(g.Text, w.text) {
			t.Errorf("line %d: got %d %s %q, want %d %s ...%q", i, g.No, clock(g.Time), g.Text, w.no, w.at, w.text)
		}
	}
	if v, l := serverVersion(parseLog("[1] 2026/12/01 16:03:44.129274 [INF]   Version:  2.14.9\n", time.UTC)); v != "2.14.9" || l.No != 1 {
		t.Errorf("serverVersion = %q, line %d", v, l.No)
	}
}

// TestLinesNearCap: within the window every line shows until the cap;
// past it the lines that are not route churn come first, then the churn
// nearest the moment, in file order.
func TestLinesNearCap(t *testing.T) {
	at := time.Date(2026, 12, 1, 16, 0, 0, 0, time.UTC)
	var b strings.Builder
	line := func(d time.Duration, text string) {
		fmt.Fprintf(&b, "[1] %s %s\n", at.Add(d).Format("2006/01/02 15:04:05.000000"), text)
	}
	line(-1500*time.Millisecond, "[INF] too early")
	for i := 0; i < maxLogLines+5; i++ {
		line(time.Duration(i-15)*50*time.Millisecond, fmt.Sprintf("[INF] 172.0.0.1:6222 - rid:%d - Route connection created", i))
	}
	line(900*time.Millisecond, "[WRN] telling, far")
	line(1500*time.Millisecond, "[INF] too late")
	logs := map[string][]logLine{"n1": parseLog(b.String(), time.UTC), "n2": nil}
	got := linesNear(logs, []string{"n1", "n2"}, []span{{at.Add(-logWindow), at.Add(logWindow)}})
	if len(got) != 2 || got[1].Total != 0 {
		t.Fatalf("got %+v", got)
	}
	n1 := got[0]
	if n1.Total != maxLogLines+6 || len(n1.Lines) != maxLogLines {
		t.Fatalf("total %d shown %d, want %d and %d", n1.Total, len(n1.Lines), maxLogLines+6, maxLogLines)
	}
	if !strings.Contains(n1.Lines[len(n1.Lines)-1].Text, "telling, far") {
		t.Errorf("the warning is not kept: last line %q", n1.Lines[len(n1.Lines)-1].Text)
	}
	for i, l := range n1.Lines {
		if strings.Contains(l.Text, "too ") {
			t.Errorf("line outside the window shown: %q", l.Text)
		}
		if i > 0 && l.No < n1.Lines[i-1].No {
			t.Errorf("lines out of file order at %d", i)
		}
	}
	// The churn dropped is the farthest: rid 0..5 lie 750-500 ms before.
	if strings.Contains(n1.Lines[0].Text, "rid:0 ") {
		t.Errorf("kept the farthest churn line %q", n1.Lines[0].Text)
	}
}

func TestRelation(t *testing.T) {
	const s = int64(time.Second)
	// A window applied at 10 s, in effect from 12 s, healing from 20 s, healed at 22 s.
	cases := []struct {
		ops  [2]int64
		want string
	}{
		{[2]int64{5 * s, 6 * s}, "4.0 s before it was applied"},
		{[2]int64{10*s + s/2, 11 * s}, "while it was being applied"},
		{[2]int64{13 * s, 14 * s}, "while it was in effect"},
		{[2]int64{21 * s, 22*s - s/10}, "during the heal, 100 ms before it was seen healed"},
		{[2]int64{23 * s, 24 * s}, "1.0 s after it healed"},
		{[2]int64{11 * s, 21 * s}, "overlapping it"},
		{[2]int64{0, 0}, "10.0 s before it was applied"}, // a zero-length op at the start
	}
	for _, tc := range cases {
		if got := relation(tc.ops, 10*s, 12*s, 20*s, 22*s); got != tc.want {
			t.Errorf("relation(%v) = %q, want %q", tc.ops, got, tc.want)
		}
	}
}

func TestMissingRanges(t *testing.T) {
	e := func(seqs ...uint64) []history.Entry {
		var out []history.Entry
		for _, s := range seqs {
			out = append(out, history.Entry{Seq: s})
		}
		return out
	}
	cases := []struct {
		entries []history.Entry
		want    string
	}{
		{nil, ""},
		{e(1, 2, 3), ""},
		{e(5, 6), "1–4"},
		{e(1, 3, 4, 9), "2 5–8"},
		{e(44205, 44210, 46729), "1–44,204 44,206–44,209 44,211–46,728"},
	}
	for _, tc := range cases {
		var got []string
		for _, r := range missingRanges(tc.entries) {
			got = append(got, r.String())
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("missingRanges(%v) = %v, want %q", tc.entries, got, tc.want)
		}
	}
}

// TestLostWriteClass: a stream that starts late is a lost head; one that
// starts at 1 with a gap is lost writes; an incomplete read is not called
// a lost head.
func TestLostWriteClass(t *testing.T) {
	r := checker.Result{Name: "stream-integrity", Verdict: checker.Invalid,
		Counts: map[string]int{"lost_write": 2, "acked_writes": 4}, Anomalies: []checker.Anomaly{{Kind: "lost_write"}}}
	cases := []struct {
		seqs     []uint64
		complete bool
		want     string
	}{
		{[]uint64{3, 4}, true, "lost-stream-head"},
		{nil, true, "lost-stream-head"},
		{[]uint64{1, 4}, true, "lost-write"},
		{[]uint64{3, 4}, false, "lost-write"},
	}
	for _, tc := range cases {
		c := &cell{logs: map[string][]logLine{}, configs: map[string]string{}}
		for _, s := range tc.seqs {
			c.stream = append(c.stream, history.Entry{Seq: s, Key: "k", Value: fmt.Sprint(s)})
		}
		c.head = streamHead{Complete: tc.complete, Count: len(tc.seqs)}
		c.res.Checks = []checker.Result{r}
		secs := sections(c)
		if len(secs) != 1 || secs[0].f.Class != tc.want {
			t.Errorf("stream %v complete=%v: %+v, want class %s", tc.seqs, tc.complete, secs, tc.want)
		}
	}
}

// TestWrongLastSeqKinds: spurious 10164 rejections and concurrent writes
// are kept as examples by the check but are not anomalies.
func TestWrongLastSeqKinds(t *testing.T) {
	rej := func(kind string, code int) checker.Anomaly {
		return checker.Anomaly{Kind: kind, Ops: []checker.OpRef{{Op: history.Op{Type: history.Update, ErrCode: code}}}}
	}
	cases := []struct {
		anomalies []checker.Anomaly
		counts    map[string]int
		want      string
	}{
		{[]checker.Anomaly{rej("spurious", 10164), rej("concurrent_write", 10071)}, map[string]int{}, ""},
		{[]checker.Anomaly{rej("spurious", 10164), rej("spurious", 10071)}, map[string]int{"spurious_10071": 1}, "spurious"},
		{[]checker.Anomaly{rej("spurious", 10164)}, map[string]int{"spurious_10071": 3}, "spurious"},
		{[]checker.Anomaly{rej("stale_read", 10071), rej("spurious", 10164)}, map[string]int{"stale_read": 1}, "stale_read"},
	}
	for _, tc := range cases {
		r := &checker.Result{Name: "wrong-last-seq", Anomalies: tc.anomalies, Counts: tc.counts}
		if got := strings.Join(invalidKinds(r), ","); got != tc.want {
			t.Errorf("invalidKinds(%v) = %q, want %q", tc.counts, got, tc.want)
		}
	}
}

func TestReply(t *testing.T) {
	cases := []struct {
		op   history.Op
		want string
	}{
		{history.Op{Type: history.Update, Outcome: history.OK, Rev: 7}, "ok, revision 7"},
		{history.Op{Type: history.Get, Outcome: history.OK}, "ok, not found"},
		{history.Op{Type: history.Update, Outcome: history.Fail, Err: history.ErrWrongLastSeq, ErrCode: 10071, ErrSeq: 3234,
			ErrMsg: "nats: nats: API error: code=400 err_code=10071 description=wrong last sequence: 3234: nats: key revision mismatch"},
			`error 10071 "wrong last sequence: 3234"`},
		{history.Op{Type: history.Update, Outcome: history.Fail, Err: history.ErrWrongLastSeq, ErrCode: 10071, ErrSeq: 9}, `error 10071 "wrong last sequence: 9"`},
		{history.Op{Type: history.Put, Outcome: history.Info, Err: history.ErrTimeout}, "timeout (indeterminate: may have been applied)"},
		{history.Op{Type: history.Put, Outcome: history.Fail, Err: history.ErrNoResponders}, "error no_responders"},
	}
	for _, tc := range cases {
		if got := reply(tc.op); got != tc.want {
			t.Errorf("reply(%+v) = %q, want %q", tc.op, got, tc.want)
		}
	}
}

// The workload line says how many revisions the bucket kept: a history-1
// bucket's read-back holds only the last one, which a maintainer needs to
// know to read the finding.
func TestWorkloadLineHistory(t *testing.T) {
	base := `"bucket":"chaos","keys":10,"clients":10,"pattern":"single-writer","replicas":3`
	tests := []struct {
		name, settings, want string
	}{
		{"before --history existed", `{` + base + `}`, "raised to keep every revision"},
		{"history all", `{` + base + `,"history":-1}`, "raised to keep every revision"},
		{"history 1", `{` + base + `,"history":1}`, "keeps the last 1 revision of each key (history 1;"},
		{"history 5", `{` + base + `,"history":5}`, "keeps the last 5 revisions of each key (history 5;"},
	}
	for _, tc := range tests {
		c := &cell{res: record.CellResult{Cell: record.Cell{Settings: []byte(tc.settings)}}}
		if got := c.workloadLine(); !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q does not say %q", tc.name, got, tc.want)
		}
	}
}

// "Where the values are" does not call an entry missing when the bucket
// only did not keep it.
func TestWhereStoredHistory(t *testing.T) {
	ac := appliedCase{op: history.Op{Client: 1, Node: "n1", Type: history.Update, Key: "k", Value: "v", ExpectedRev: 3,
		Outcome: history.Fail, Err: history.ErrWrongLastSeq, ErrCode: 10071, ErrSeq: 2}, entry: history.Entry{Seq: 9, Key: "k", Value: "v"}}
	for settings, want := range map[string]string{
		`{"bucket":"chaos","history":1}`:  "not in the read-back (it keeps 1 revision per key)",
		`{"bucket":"chaos","history":-1}`: "none",
		`{"bucket":"chaos"}`:              "none",
	} {
		c := &cell{res: record.CellResult{Cell: record.Cell{Settings: []byte(settings)}}}
		if got := c.whereStored([]appliedCase{ac}).rows[0][4]; got != want {
			t.Errorf("%s: %q, want %q", settings, got, want)
		}
	}
}

// TestNodeHealthClasses: node-health's anomalies are findings of their
// own, each promising the server stays up within its memory, with the
// check's examples of its kind and their count.
func TestNodeHealthClasses(t *testing.T) {
	r := checker.Result{Name: "node-health", Verdict: checker.Invalid, Summary: "2 OOM kill(s), 1 restart(s) by the runtime and 0 death(s) nobody asked for",
		Counts: map[string]int{"oom_kills": 2, "restarts": 1},
		Anomalies: []checker.Anomaly{{Kind: "oom_kill", Description: "n2 OOM kill #1 (seen between 5.8s and 6.0s)"},
			{Kind: "oom_kill", Description: "n2 OOM kill #2 (seen between 9.8s and 10.0s)"},
			{Kind: "restart", Description: "n1 restart #1 by the runtime between 8.0s and 8.2s, no fault aimed at n1 then"}}}
	c := &cell{res: record.CellResult{Checks: []checker.Result{r}}}
	secs := sections(c)
	if len(secs) != 2 {
		t.Fatalf("%d sections", len(secs))
	}
	for i, want := range []struct {
		slug    string
		count   int
		example string
	}{{"oom-kill", 2, "- n2 OOM kill #2"}, {"unexplained-restart", 1, "- n1 restart #1 by the runtime"}} {
		s := secs[i]
		if s.f.Class != want.slug || s.f.Count != want.count || s.promise != promiseAlive || !strings.Contains(strings.Join(s.happened, "\n"), want.example) {
			t.Errorf("section %d: %s, %d cases, promise %q, %q", i, s.f.Class, s.f.Count, s.promise, s.happened)
		}
	}
}

// TestStuckCurrentClass: a replica stuck behind while its leader called it
// current is a section of its own, before the divergence's generic ones.
func TestStuckCurrentClass(t *testing.T) {
	reps := []replicas.Replica{{Node: "n1", Complete: true, Entries: []history.Entry{{Seq: 1, Key: "k", Value: "a"}}},
		{Node: "n2", Complete: true, Entries: []history.Entry{{Seq: 1, Key: "k", Value: "a"}, {Seq: 2, Key: "k", Value: "b"}}},
		{Node: "n3", Complete: true, Entries: []history.Entry{{Seq: 1, Key: "k", Value: "a"}, {Seq: 2, Key: "k", Value: "b"}}}}
	yes := true
	reps[0].CalledCurrent = &yes
	first := replicas.ReadingOf(reps, 0, checker.Options{})
	r := replicas.CheckConverged(reps, []replicas.Reading{first, replicas.ReadingOf(reps, 60*time.Second, checker.Options{})}, checker.Options{})
	secs := sections(&cell{res: record.CellResult{Checks: []checker.Result{r}}})
	if len(secs) < 2 || secs[0].f.Class != "replica-stuck-current" || secs[0].f.Count != 1 || secs[0].promise != promiseCurrent {
		t.Fatalf("sections %+v", secs)
	}
	if h := strings.Join(secs[0].happened, "\n"); !strings.Contains(h, "n1 stayed behind for 1m0s of readings") {
		t.Errorf("the section does not name the stuck replica: %s", h)
	}
}

// TestRegisteredClasses: a workload's registered classes name its
// sections; a kind the check counts as unsure gets none, a check invalid
// with no registered kind found is one generic section, and a slug or
// kind registered twice panics.
func TestRegisteredClasses(t *testing.T) {
	RegisterClasses(Class{Check: "fake-lost", Kind: "lost", Slug: "fake-lost-message", Title: "A message was lost", Promise: "kept", Rank: 0})
	r := checker.Result{Name: "fake-lost", Verdict: checker.Invalid, Summary: "1 lost, 2 unconfirmed",
		Counts:    map[string]int{"lost": 1, "unconfirmed": 2},
		Anomalies: []checker.Anomaly{{Kind: "unconfirmed", Description: "p1-3 maybe"}, {Kind: "lost", Description: "p1-4 lost"}}}
	secs := sections(&cell{res: record.CellResult{Checks: []checker.Result{r}}})
	if len(secs) != 1 || secs[0].f.Class != "fake-lost-message" || secs[0].promise != "kept" || secs[0].f.Count != 1 ||
		!strings.Contains(strings.Join(secs[0].happened, "\n"), "p1-4 lost") || strings.Contains(strings.Join(secs[0].happened, "\n"), "p1-3") {
		t.Fatalf("sections %+v; want one fake-lost-message section with the lost example alone", secs)
	}
	// A check that names ops by index only: the table shows the
	// history's ops, and no row for an index the history lacks.
	got := history.Op{Type: "fake-send", Client: 4, Node: "n2", Outcome: history.OK, Data: json.RawMessage(`{"id":"p1-4"}`), Invoke: 5, Complete: 9}
	r.Anomalies[1].Ops = []checker.OpRef{{Index: 1}, {Index: 7}}
	secs = sections(&cell{res: record.CellResult{Checks: []checker.Result{r}}, ops: []history.Op{{Type: "other"}, got}})
	if len(secs) != 1 || len(secs[0].ops) != 1 || secs[0].ops[0].Type != "fake-send" || secs[0].ops[0].Client != 4 {
		t.Fatalf("ops %+v; want the history's op 1 alone", secs[0].ops)
	}
	r.Counts, r.Anomalies = map[string]int{"other": 1}, nil
	secs = sections(&cell{res: record.CellResult{Checks: []checker.Result{r}}})
	if len(secs) != 1 || secs[0].f.Class != "fake-lost" || secs[0].f.Title != "The fake-lost check failed" {
		t.Fatalf("sections %+v; want the check's generic section", secs)
	}
	for _, c := range []Class{
		{Check: "fake-lost", Kind: "lost", Slug: "fake-other", Title: "t"},
		{Check: "fake-other", Kind: "x", Slug: "fake-lost-message", Title: "t"},
		{Check: "fake-other", Kind: "y", Slug: "oom-kill", Title: "t"},
		{Check: "fake-other", Kind: "z", Title: "no slug"},
		{Check: "stream-integrity", Kind: "lost", Slug: "fake-integrity-lost", Title: "t"},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%+v registered", c)
				}
			}()
			RegisterClasses(c)
		}()
	}
}

// TestReplyOfDataOps: an op with a workload's own data says how it ended
// in its own terms: a drain that gave up by its reason, a duplicate
// PubAck as such, a fire-and-forget ack as sent.
func TestReplyOfDataOps(t *testing.T) {
	data := json.RawMessage(`{"consumer":"c0"}`)
	for _, tc := range []struct {
		op   history.Op
		want string
	}{
		{history.Op{Data: data, Outcome: history.OK}, "ok"},
		{history.Op{Data: data, Outcome: history.OK, Err: "duplicate"}, "ok, duplicate"},
		{history.Op{Data: data, Outcome: history.Info, ErrMsg: "gave up: nothing delivered for 20s"}, "gave up: nothing delivered for 20s"},
		{history.Op{Data: data, Outcome: history.Info}, "sent (indeterminate: nothing says the server got it)"},
		{history.Op{Data: data, Outcome: history.Info, Err: history.ErrTimeout}, "timeout (indeterminate: may have been applied)"},
	} {
		if got := reply(tc.op); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.op, got, tc.want)
		}
	}
}

type testDescriber struct{}

func (testDescriber) Setup(raw json.RawMessage, directGet bool) (string, error) {
	return fmt.Sprintf("a test workload of %s, Direct Get %v", raw, directGet), nil
}

func (testDescriber) Steps(json.RawMessage, bool) (string, error) {
	return "run the test workload", nil
}

// A workload is described by its registered describer, in the environment
// and in the steps by hand; without one, by its settings as JSON; a
// second describer for one workload is a programming error.
func TestDescribers(t *testing.T) {
	cellOf := func(workload string) *cell {
		return &cell{run: runInfo{Workload: workload}, res: record.CellResult{Cell: record.Cell{Settings: []byte(`{"n": 1}`), DirectGet: true}}}
	}
	if got, want := cellOf("undescribed").workloadLine(), "undescribed, settings `{\"n\":1}`"; got != want {
		t.Errorf("without a describer: %q, want %q", got, want)
	}
	if got := cellOf("undescribed").workloadSteps(); got != "" {
		t.Errorf("steps without a describer: %q", got)
	}
	RegisterDescriber("described-in-test", testDescriber{})
	c := cellOf("described-in-test")
	if got, want := c.workloadLine(), `a test workload of {"n": 1}, Direct Get true`; got != want {
		t.Errorf("with a describer: %q, want %q", got, want)
	}
	if got := c.byHand(section{}); !strings.Contains(got, "configuration above; run the test workload; then wait until") {
		t.Errorf("steps by hand: %q", got)
	}
	for _, name := range []string{"described-in-test", kvWorkload} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("a second describer for %s was taken", name)
				}
			}()
			RegisterDescriber(name, testDescriber{})
		}()
	}
}

// TestKnownSignatures: a recovery finding whose cell's node logged a
// known anomaly's line often enough names the reproduction; too few
// lines, or a check the signature does not explain, name nothing.
func TestKnownSignatures(t *testing.T) {
	line := "[1] 2026/12/04 02:53:%02d.315469 [WRN] RAFT [44jzkV9D - S-R3F-J8OooG7b] Expected first catchup entry to be a snapshot and peerstate, will retry"
	logOf := func(n int) string {
		var b strings.Builder
		b.WriteString("[1] 2026/12/04 02:53:30.000000 [INF] Server is ready\n")
		for i := range n {
			fmt.Fprintf(&b, line+"\n", 32+3*i)
		}
		return b.String()
	}
	for _, tc := range []struct {
		check string
		lines int
		want  string // "" = none named
	}{
		{checker.NameRecovery, 4, "n2 logged `Expected first catchup entry to be a snapshot and peerstate, will retry` 4 times, from 02:53:32.315 to 02:53:41.315 (its log's clock). That is the signature of a known anomaly, reproduced without Docker in jetstream-chaos's `repro/partitionheal`"},
		{"replica-divergence", 3, "`repro/partitionheal` (`go test -v -count=1 -run DeposedLeader ./repro/partitionheal`)"},
		{checker.NameRecovery, 2, ""},
		{"counter-reads", 9, ""},
	} {
		r := checker.Result{Name: tc.check, Verdict: checker.Invalid, Summary: "did not recover within 1m0s"}
		c := &cell{res: record.CellResult{Checks: []checker.Result{r}}, nodes: []string{"n1", "n2"},
			logs: map[string][]logLine{"n1": parseLog(logOf(0), time.UTC), "n2": parseLog(logOf(tc.lines), time.UTC)}}
		secs := sections(c)
		if len(secs) != 1 {
			t.Fatalf("%s: %d sections", tc.check, len(secs))
		}
		got := strings.Join(secs[0].happened, "\n")
		switch {
		case tc.want == "" && strings.Contains(got, "repro/"):
			t.Errorf("%s with %d lines named a reproduction: %s", tc.check, tc.lines, got)
		case tc.want != "" && !strings.Contains(got, tc.want):
			t.Errorf("%s with %d lines: %s\nwant %q", tc.check, tc.lines, got, tc.want)
		}
	}
}
