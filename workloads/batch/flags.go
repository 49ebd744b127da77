package batch

import (
	"fmt"
	"strconv"

	"github.com/spf13/pflag"

	"github.com/jetstream-chaos/jetstream-chaos/workloads"
)

// flags are the batch workload's flags on `chaos run`.
type flags struct {
	sizes                                     []string
	subjects, producers, replicas             *int
	wrongLastSeq, abandon, duplicateID, plain *int
}

// bindFlags binds the flags on fs. --batch-size takes a list: each value
// is a cell.
func bindFlags(fs *pflag.FlagSet) *flags {
	d := Defaults
	f := &flags{}
	fs.StringSliceVar(&f.sizes, "batch-size", []string{fmt.Sprint(d.BatchSize)}, fmt.Sprintf("messages in each batch, its commit included, 1..%d (list: cells)", MaxBatchSize))
	f.subjects = fs.Int("subjects", d.Subjects, "subjects a batch's messages go to, in turn; the multi-subject reads read them all")
	f.producers = fs.Int("producers", d.Producers, "producers on each node, each on its own connection")
	f.replicas = fs.Int("replicas", d.Replicas, "stream replicas")
	f.wrongLastSeq = fs.Int("wrong-last-seq", d.Mix.WrongLastSeq, "batches in a hundred committed expecting a last sequence the stream is past (refused whole, 10071)")
	f.abandon = fs.Int("abandon", d.Mix.Abandoned, "batches in a hundred never committed (the server drops them after 10 s; at most one a producer in that time)")
	f.duplicateID = fs.Int("duplicate-id", d.Mix.DuplicateID, "batches in a hundred holding a Nats-Msg-Id already stored (refused whole, 10201)")
	f.plain = fs.Int("plain", d.Mix.Plain, "publishes in a hundred of one message on its own, not a batch, retried under its Nats-Msg-Id (stored once if acknowledged)")
	return f
}

// expand makes one Options per --batch-size.
func (f *flags) expand(func(string) bool) ([]workloads.Settings, error) {
	var out []workloads.Settings
	for _, s := range f.sizes {
		n, err := strconv.Atoi(s)
		if err != nil {
			return nil, fmt.Errorf("--batch-size %q: want a number of messages", s)
		}
		o := Defaults
		o.BatchSize, o.Subjects, o.Producers, o.Replicas = n, *f.subjects, *f.producers, *f.replicas
		o.Mix = Mix{WrongLastSeq: *f.wrongLastSeq, Abandoned: *f.abandon, DuplicateID: *f.duplicateID, Plain: *f.plain}
		out = append(out, o)
	}
	return out, nil
}
