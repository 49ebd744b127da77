package batch

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/pflag"

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
		want string // "" valid
	}{
		{"defaults", func(*Options) {}, ""},
		{"one message", func(o *Options) { o.BatchSize = 1 }, ""},
		{"the server's most", func(o *Options) { o.BatchSize = MaxBatchSize }, ""},
		{"every batch refused", func(o *Options) { o.Mix = Mix{WrongLastSeq: 50, DuplicateID: 50} }, ""},
		{"batch size 0", func(o *Options) { o.BatchSize = 0 }, "--batch-size must be 1..1000"},
		{"batch size over the most", func(o *Options) { o.BatchSize = MaxBatchSize + 1 }, "got 1001"},
		{"no subjects", func(o *Options) { o.Subjects = 0 }, "--subjects must be at least 1"},
		{"no producers", func(o *Options) { o.Producers = 0 }, "--producers must be at least 1"},
		{"more replicas than nodes", func(o *Options) { o.Replicas = 4 }, "--replicas must be 1..3"},
		{"negative mix", func(o *Options) { o.Mix.Abandoned = -1 }, "each 0 or more"},
		{"mix over a hundred", func(o *Options) { o.Mix = Mix{WrongLastSeq: 50, DuplicateID: 50, Abandoned: 1} }, "together at most 100"},
		{"stream with a dot", func(o *Options) { o.Stream = "A.B" }, `stream name "A.B"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := Defaults
			c.edit(&o)
			err := o.Validate(3)
			switch {
			case c.want == "" && err != nil:
				t.Errorf("want valid, got %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n")):
				t.Errorf("want one line containing %q, got %v", c.want, err)
			}
		})
	}
}

// A --batch-size list is one cell each, told apart by the batch-size tag;
// every other flag reaches every cell, and each cell survives run.json.
func TestFlagsExpandAndDecode(t *testing.T) {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	w, err := workloads.Get(Name)
	if err != nil {
		t.Fatal(err)
	}
	expand := w.Flags(fs)
	if err := fs.Parse([]string{"--batch-size", "1,100", "--subjects", "5", "--producers", "2", "--abandon", "0", "--plain", "30"}); err != nil {
		t.Fatal(err)
	}
	cells, err := expand(fs.Changed)
	if err != nil || len(cells) != 2 {
		t.Fatalf("%d cells, %v", len(cells), err)
	}
	for i, size := range []int{1, 100} {
		o := cells[i].(Options)
		if o.BatchSize != size || o.Subjects != 5 || o.Producers != 2 || o.Mix.Abandoned != 0 || o.Mix.Plain != 30 || o.Mix.WrongLastSeq != Defaults.Mix.WrongLastSeq {
			t.Errorf("cell %d: %+v", i, o)
		}
		if tags := o.Tags(); len(tags) != 1 || tags[0].Value != []string{"1", "100"}[i] {
			t.Errorf("cell %d tags %v", i, tags)
		}
		raw, _ := workloads.Marshal(o)
		back, err := w.Decode(raw)
		if err != nil || !reflect.DeepEqual(back, o) {
			t.Errorf("cell %d decoded %+v, %v", i, back, err)
		}
	}
	if _, err := w.Decode(json.RawMessage(`{"batch_size":"x"}`)); err == nil {
		t.Error("bad settings decoded")
	}
}

// The plan reads Direct Get, names the one stream and, as data, the
// release atomic batches came in; Named moves the stream and its subjects.
func TestPlanAndNamed(t *testing.T) {
	p := Defaults.Named("X_1").(Options).Plan(cluster.Config{Nodes: 3})
	if !p.Timed || !p.ReadsDirectGet || p.Since != "v2.12.0" || p.Feature == "" {
		t.Errorf("plan %+v", p)
	}
	if len(p.Streams) != 1 || p.Streams[0].Name != "X_1" || p.Streams[0].Filter != "X_1.>" || p.Streams[0].Replicas != 3 {
		t.Errorf("streams %+v", p.Streams)
	}
}

// The summary counts each kind by outcome and says how the read-back
// ended, and that it is missing when the cell stopped before its end.
func TestSummarize(t *testing.T) {
	rec := Recorded{Batches: []Batch{
		{ID: "a", Kind: KindCommit, Outcome: history.OK}, {ID: "b", Kind: KindCommit, Outcome: history.Info},
		{ID: "c", Kind: KindWrongLastSeq, Outcome: history.Fail}}, Deliveries: make([]Delivery, 4)}
	got := strings.Join(summarize(rec, ReadBack{Msgs: make([]Stored, 3), LastSeq: 3, Complete: true}, true), "\n")
	for _, want := range []string{"3 batches tried", "commit 2 (acknowledged 1, refused 0, indeterminate 1)",
		"wrong-last-seq 1 (acknowledged 0, refused 1, indeterminate 0)", "4 deliveries", "read back: 3 messages, to the stream's last sequence 3"} {
		if !strings.Contains(got, want) {
			t.Errorf("summary %q lacks %q", got, want)
		}
	}
	if got := strings.Join(summarize(rec, ReadBack{}, false), "\n"); !strings.Contains(got, "not read back") {
		t.Errorf("summary without a read-back: %q", got)
	}
	if got := strings.Join(summarize(rec, ReadBack{LastSeq: 2, Detail: "timeout"}, true), "\n"); !strings.Contains(got, "not to the end (timeout)") {
		t.Errorf("summary of an incomplete read-back: %q", got)
	}
}
