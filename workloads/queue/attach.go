package queue

import (
	"context"
	"fmt"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/workloads"
)

// Consumers is the queue workload's consumer side on a stream another
// workload fills (the sources workload's sourced stream): durable pull
// consumers and their workers, the pending sampler, the final drain and the
// read-back into stream.jsonl, all recorded as queue ops, so that the
// queue's checkers judge them (Judge) rather than copies of them.
type Consumers struct{ i *instance }

// Attach creates o's durable consumers on the existing stream o.Stream
// and writes queue.json; o.Producers is 0, since the caller publishes.
func Attach(ctx context.Context, o Options, env *workloads.Env) (*Consumers, error) {
	if o.Stream == "" || o.Pattern != Pull || o.Producers != 0 {
		return nil, fmt.Errorf("queue.Attach needs a named stream, pull consumers and no producers, got %q, %s, %d", o.Stream, o.Pattern, o.Producers)
	}
	i, err := open(ctx, o, env, false)
	if err != nil {
		return nil, err
	}
	return &Consumers{i: i}, nil
}

// Run drives the workers and the sampler until ctx is done.
func (c *Consumers) Run(ctx context.Context) error { return c.i.Run(ctx, nil) }

// Finish drains the consumers and reads the stream back, as the queue
// workload's Finish.
func (c *Consumers) Finish(ctx context.Context) error { return c.i.Finish(ctx) }

// Close closes the connections.
func (c *Consumers) Close() { c.i.Close() }

// Judge runs the named checkers of the queue workload on a cell, in
// RunCheckers' order; a name that is not a queue checker is an error.
func Judge(c *Cell, names []string, maxExamples int) ([]checker.Result, error) {
	known := map[string]bool{}
	for _, ch := range checks(c) {
		known[ch.name] = true
	}
	for _, n := range names {
		if !known[n] {
			return nil, fmt.Errorf("queue has no checker %q", n)
		}
	}
	return runChecks(c, maxExamples, func(name string) bool {
		for _, n := range names {
			if n == name {
				return true
			}
		}
		return false
	}), nil
}
