package counter

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/jetstream-chaos/jetstream-chaos/checker/replicas"
	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/history"
	"github.com/jetstream-chaos/jetstream-chaos/workloads"
)

// Each bad value is the one-line error naming its flag; the defaults and
// the edges pass.
func TestValidate(t *testing.T) {
	cases := []struct {
		name string
		edit func(*Options)
		want string
	}{
		{"defaults", func(*Options) {}, ""},
		{"one counter, no retries", func(o *Options) { o.Counters, o.Retries = 1, 0 }, ""},
		{"no counters", func(o *Options) { o.Counters = 0 }, "--counters must be at least 1"},
		{"no clients", func(o *Options) { o.Clients = 0 }, "--clients must be at least 1"},
		{"more replicas than nodes", func(o *Options) { o.Replicas = 5 }, "--replicas must be 1..3"},
		{"no delta", func(o *Options) { o.MaxDelta = 0 }, "--max-delta must be at least 1"},
		{"negative retries", func(o *Options) { o.Retries = -1 }, "--add-retries must not be negative"},
		{"a timeout too short", func(o *Options) { o.Timeout = time.Millisecond }, "--add-timeout 1ms is below 100ms"},
		{"stream with a space", func(o *Options) { o.Stream = "A B" }, `stream name "A B"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := Defaults
			c.edit(&o)
			err := o.Validate(3)
			switch {
			case c.want == "" && err != nil:
				t.Errorf("want valid, got %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Errorf("want %q, got %v", c.want, err)
			}
		})
	}
}

// --deltas positive,mixed is two cells told apart by the deltas tag; the
// other flags reach both; each survives run.json; a bad --deltas is named.
func TestFlagsExpandAndDecode(t *testing.T) {
	w, err := workloads.Get(Name)
	if err != nil {
		t.Fatal(err)
	}
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	expand := w.Flags(fs)
	if err := fs.Parse([]string{"--deltas", "positive,mixed", "--counters", "5", "--add-timeout", "1s"}); err != nil {
		t.Fatal(err)
	}
	cells, err := expand(fs.Changed)
	if err != nil || len(cells) != 2 {
		t.Fatalf("%d cells, %v", len(cells), err)
	}
	for i, mixed := range []bool{false, true} {
		o := cells[i].(Options)
		if o.Mixed != mixed || o.Counters != 5 || o.Timeout != time.Second || o.Retries != Defaults.Retries {
			t.Errorf("cell %d: %+v", i, o)
		}
		if tags := o.Tags(); tags[0].Value != []string{"positive", "mixed"}[i] {
			t.Errorf("cell %d tags %v", i, tags)
		}
		raw, _ := workloads.Marshal(o)
		if back, err := w.Decode(raw); err != nil || !reflect.DeepEqual(back, o) {
			t.Errorf("cell %d decoded %+v, %v", i, back, err)
		}
	}
	fs = pflag.NewFlagSet("t", pflag.ContinueOnError)
	expand = w.Flags(fs)
	_ = fs.Parse([]string{"--deltas", "negative"})
	if _, err := expand(fs.Changed); err == nil || !strings.Contains(err.Error(), `--deltas "negative": want positive or mixed`) {
		t.Errorf("bad --deltas: %v", err)
	}
}

// The plan reads Direct Get, names the stream, and the release counters
// came in.
func TestPlan(t *testing.T) {
	p := Defaults.Named("X").(Options).Plan(cluster.Config{Nodes: 3})
	if !p.Timed || !p.ReadsDirectGet || p.Since != "v2.12.0" || len(p.Streams) != 1 || p.Streams[0].Filter != "X.>" {
		t.Errorf("plan %+v", p)
	}
}

// The summary counts adds by outcome, reads by path, and gives each final
// value, or says the counters were not read.
func TestSummarize(t *testing.T) {
	adds := []Add{{Outcome: history.OK, Attempts: 2}, {Outcome: history.Info}, {Outcome: history.Fail}}
	reads := []Read{{Direct: true}, {}, {}}
	got := strings.Join(summarize(adds, reads, Final{Values: map[string]int64{"C.c1": 4, "C.c0": -2}, Complete: true}, true), "\n")
	for _, want := range []string{"3 adds: acknowledged 1, refused 1, indeterminate 1; 1 retried", "3 reads answered: 1 through Direct Get, 2 from the leader",
		"after the heal: C.c0 -2, C.c1 4"} {
		if !strings.Contains(got, want) {
			t.Errorf("summary %q lacks %q", got, want)
		}
	}
	if got := strings.Join(summarize(adds, reads, Final{}, false), "\n"); !strings.Contains(got, "not read after the heal") {
		t.Errorf("%q", got)
	}
}

// Each replica's last total of each counter, from its own copy; a server
// that is not a replica is left out, one read in part says so.
func TestReplicaValues(t *testing.T) {
	e := func(seq uint64, c string, total int) history.Entry {
		return history.Entry{Seq: seq, Key: c, Value: fmt.Sprintf(`{"val":"%d"} incr 1`, total)}
	}
	reps := []replicas.Replica{
		{Node: "n1", Complete: true, Entries: []history.Entry{e(1, "C.c0", 1), e(2, "C.c1", 1), e(3, "C.c0", 2)}},
		{Node: "n2", Entries: []history.Entry{e(1, "C.c0", 1)}},
		{Node: "n3", NotReplica: true},
	}
	want := "each replica's counters, read on its own server: n1 C.c0 2, C.c1 1; n2 C.c0 1 (read in part)"
	if got := replicaValues(reps); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
