package run

import (
	"maps"
	"sync"

	"github.com/jetstream-chaos/jetstream-chaos/history"
	"github.com/jetstream-chaos/jetstream-chaos/record"
)

// liveOps counts every op the history records, for the live line and the
// results' op counts: one count for every workload, from its ops, so a
// workload keeps no counters of its own. The recorder calls add under its
// lock; the live line reads from its own goroutine.
type liveOps struct {
	mu sync.Mutex
	c  record.OpCounts
}

func newLiveOps() *liveOps { return &liveOps{c: record.NewOpCounts()} }

func (l *liveOps) add(op history.Op) {
	l.mu.Lock()
	l.c.Add(op)
	l.mu.Unlock()
}

// counts is a copy of the counts so far (none before the history opens).
func (l *liveOps) counts() record.OpCounts {
	if l == nil {
		return record.NewOpCounts()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	c := l.c
	c.ByType, c.ErrorsByKind = maps.Clone(c.ByType), maps.Clone(c.ErrorsByKind)
	return c
}
