package findings

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// section is one finding as rendered: the parts every bug report has, in
// the order an issue reads.
type section struct {
	f Finding
	// caveat is what a reader must know before filing it (a power loss
	// under a sync_interval other than always), shown first.
	caveat string
	// promise is what the client was promised, in its API's terms.
	promise string
	// happened are paragraphs: what happened instead, with numbers.
	happened []string
	// ops are the operations cited; opsNote says how they were chosen.
	ops     []history.Op
	opsNote string
	// tables are further facts (stream entries, revisions), each with a
	// heading.
	tables []table
	// timeline is a merged list of events across nodes, when the finding
	// spans a long time (lost writes).
	timeline []event
	// notes are further paragraphs: what the sources say, caveats.
	notes []string
	// opSpan is the history time range (ns) of what happened: fault
	// windows within faultMargin of it are shown; allFaults shows every
	// window.
	opSpan    [2]int64
	allFaults bool
	// logSpans are the wall-clock moments whose server log lines (within
	// logWindow) are shown.
	logSpans []time.Time
	// byHand says how to reproduce it without this toolkit.
	byHand string
}

type table struct {
	title  string
	header []string
	rows   [][]string
	note   string
}

// event is one line of a timeline.
type event struct {
	at   time.Time
	node string
	what string
}

// faultMargin is how far from the ops a fault window is still shown.
const faultMargin = 5 * time.Second

// opsSpan is the time range of the ops, from the first invoke to the last
// completion.
func opsSpan(ops []history.Op) [2]int64 {
	if len(ops) == 0 {
		return [2]int64{}
	}
	s := [2]int64{ops[0].Invoke, ops[0].Complete}
	for _, o := range ops[1:] {
		s[0], s[1] = min(s[0], o.Invoke), max(s[1], o.Complete)
	}
	return s
}

// opMoments are the wall-clock invoke and complete times of the ops.
func (c *cell) opMoments(ops []history.Op) []time.Time {
	var out []time.Time
	for _, o := range ops {
		out = append(out, c.wall(o.Invoke), c.wall(o.Complete))
	}
	return out
}

// opID identifies an op without its index: a client's ops never share an
// invoke time.
func opID(o history.Op) string { return fmt.Sprintf("%d/%d/%s", o.Client, o.Invoke, o.Type) }

func sortOps(ops []history.Op) {
	sort.SliceStable(ops, func(a, b int) bool { return ops[a].Invoke < ops[b].Invoke })
}

// reply is how an op ended, as the client saw it. An op with a
// workload's own data says what it returned in its data (call).
func reply(o history.Op) string {
	switch {
	case len(o.Data) > 0 && o.Outcome == history.OK && o.Err != "":
		return "ok, " + string(o.Err)
	case len(o.Data) > 0 && o.Outcome == history.OK:
		return "ok"
	case len(o.Data) > 0 && o.Outcome == history.Info && o.ErrCode == 0 && o.Err == "" && o.ErrMsg != "":
		return o.ErrMsg
	case len(o.Data) > 0 && o.Outcome == history.Info && o.ErrCode == 0 && o.Err == "":
		return "sent (indeterminate: nothing says the server got it)"
	case o.Outcome == history.OK && o.Type == history.Get && o.Rev == 0:
		return "ok, not found"
	case o.Outcome == history.OK:
		return fmt.Sprintf("ok, revision %d", o.Rev)
	case o.ErrCode != 0:
		return fmt.Sprintf("error %d %q", o.ErrCode, errDescription(o))
	case o.Outcome == history.Info:
		return fmt.Sprintf("%s (indeterminate: may have been applied)", o.Err)
	}
	return "error " + string(o.Err)
}

// errDescription is the server's description in nats.go's message
// ("... err_code=10071 description=wrong last sequence: 3234: nats: ...").
func errDescription(o history.Op) string {
	m := o.ErrMsg
	i := strings.Index(m, "description=")
	if i < 0 {
		if o.Err == history.ErrWrongLastSeq && o.ErrSeq != 0 {
			return fmt.Sprintf("wrong last sequence: %d", o.ErrSeq)
		}
		return m
	}
	m = m[i+len("description="):]
	if j := strings.Index(m, ": nats: "); j >= 0 {
		m = m[:j]
	}
	return m
}

// call is the op as the client API call it made; an op with a
// workload's own data is its type and that data.
func call(o history.Op) string {
	if len(o.Data) > 0 {
		var b bytes.Buffer
		if json.Compact(&b, o.Data) == nil {
			return string(o.Type) + " " + b.String()
		}
		return string(o.Type) + " " + string(o.Data)
	}
	switch o.Type {
	case history.Update:
		return fmt.Sprintf("kv.Update(%q, %q, %d)", o.Key, o.Value, o.ExpectedRev)
	case history.Put:
		return fmt.Sprintf("kv.Put(%q, %q)", o.Key, o.Value)
	case history.Create:
		return fmt.Sprintf("kv.Create(%q, %q)", o.Key, o.Value)
	case history.Get:
		return fmt.Sprintf("kv.Get(%q)", o.Key)
	}
	return string(o.Type)
}

// opTable renders ops as rows: client, node, call, reply, invoked,
// completed (relative and wall-clock).
func (c *cell) opTable(ops []history.Op) table {
	t := table{header: []string{"client", "node", "call", "reply", "invoked", "completed"}}
	for _, o := range ops {
		t.rows = append(t.rows, []string{fmt.Sprint(o.Client), nodeOf(o.Node), "`" + call(o) + "`", reply(o),
			c.when(o.Invoke), c.when(o.Complete)})
	}
	return t
}

func nodeOf(n string) string {
	if n == "" {
		return "?"
	}
	return n
}

// when is a history time as "12.345 s (16:19:15.761612)": seconds since
// the history's zero and the wall clock, UTC.
func (c *cell) when(ns int64) string {
	rel := fmt.Sprintf("%.3f s", float64(ns)/1e9)
	if c.res.HistoryStart.IsZero() {
		return rel
	}
	return rel + " (" + clock(c.wall(ns)) + ")"
}

func clock(t time.Time) string { return t.UTC().Format("15:04:05.000000") }

// rel is a wall-clock time as seconds since the history's zero.
func (c *cell) rel(t time.Time) string {
	if c.res.HistoryStart.IsZero() {
		return "?"
	}
	return fmt.Sprintf("%.3f s", t.Sub(c.res.HistoryStart).Seconds())
}

// plural is "1 write" or "3 writes", with thousands separated.
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return thousands(n) + " " + many
}

func thousands(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// secs is a duration in seconds, or in milliseconds below one.
func secs(d time.Duration) string {
	if d < time.Second && d > -time.Second {
		return fmt.Sprintf("%d ms", d.Milliseconds())
	}
	return fmt.Sprintf("%.1f s", d.Seconds())
}
