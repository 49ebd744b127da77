package queue

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/client"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// malformedCells are stored cells that Load refuses: each builder writes
// testdata/malformed/<name> (with -update), and want is what the one-line
// error says after naming the file.
var malformedCells = map[string]struct {
	build func() *Cell
	file  string // the file the error names
	want  string
}{
	// The checkers keep one bit per consumer: a 65th would pass unjudged.
	"consumers_65": {file: SettingsFile, want: "65 consumers, but the workload creates 1..64",
		build: func() *Cell { return oneValue(65) }},
	"consumers_0": {file: SettingsFile, want: "0 consumers, but the workload creates 1..64",
		build: func() *Cell { return oneValue(0) }},
	// A publish recorded as failed must say how it was refused: the
	// producer records a timeout or an unplaced error as info.
	"failed_timeout": {file: "history.jsonl:2", want: `publish of p0-2 recorded as failed without a refusal (err "timeout", code 0)`,
		build: func() *Cell { return failedAs("timeout", 0) }},
	"failed_unplaced": {file: "history.jsonl:2", want: `publish of p0-2 recorded as failed without a refusal (err "other", code 0)`,
		build: func() *Cell { return failedAs("other", 0) }},
	"failed_in_process": {file: "history.jsonl:2", want: `publish of p0-2 recorded as failed without a refusal (err "msg_id_in_process", code 10158)`,
		build: func() *Cell { return failedAs(string(history.ErrMsgIDInProcess), client.CodeMsgIDInProcess) }},
}

// oneValue is a cell with n consumers that each got p0-1.
func oneValue(n int) *Cell {
	f := newFx(func(o *Options) { o.Producers, o.Consumers, o.Workers = 1, n, 1 })
	v := Value("p0", 1)
	f.pub(v, 10, 12, ok, 1, 1)
	f.keep(1, v)
	for c := range n {
		f.got(c, c, v, 1, 1, 20)
	}
	return f.wrap(2000)
}

// failedAs is a cell whose second op is a publish of p0-2 recorded as
// failed with the given error kind and code.
func failedAs(kind string, code int) *Cell {
	f := newFx(func(o *Options) { o.Consumers = 1 })
	v := Value("p0", 1)
	f.pub(v, 10, 12, ok, 1, 1)
	f.add(Op{Op: history.Op{Client: producerClient, Type: OpPublish, Outcome: fail, Err: history.ErrKind(kind), ErrCode: code, Invoke: 20, Complete: 21},
		M: Msg{Producer: "p0", Value: Value("p0", 2), Attempt: 1}})
	f.keep(1, v)
	f.got(0, 0, v, 1, 1, 20)
	return f.wrap(2000)
}

// TestLoadRefuses: each malformed cell gives one line naming its file and
// what is wrong, and no cell.
func TestLoadRefuses(t *testing.T) {
	var names []string
	for n := range malformedCells {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, name := range names {
		mc := malformedCells[name]
		dir := filepath.Join("testdata", "malformed", name)
		if *update {
			writeCell(t, dir, mc.build())
		}
		t.Run(name, func(t *testing.T) {
			c, err := Load(dir)
			if err == nil {
				t.Fatalf("loaded a cell with %d consumers and %d ops", len(c.Consumers), len(c.Ops))
			}
			want := filepath.Join(dir, mc.file) + ": " + mc.want
			if got := err.Error(); !strings.HasPrefix(got, want) || strings.Contains(got, "\n") {
				t.Errorf("error %q, want one line starting %q", got, want)
			}
		})
	}
}
