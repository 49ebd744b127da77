package run

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/workloads/kvupdate"
)

// progress prints one live line: phase, ops/s, errors, elapsed of total. On
// a terminal it rewrites the line; elsewhere (CI logs) it prints a line
// every few seconds.
type progress struct {
	out   io.Writer
	tty   bool
	cell  string
	total time.Duration

	mu    sync.Mutex
	phase string
	start time.Time
	stats *kvupdate.Stats
	stop  chan struct{}
	done  chan struct{}
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func newProgress(out *os.File, cell string, total time.Duration) *progress {
	return &progress{out: out, tty: isTerminal(out), cell: cell, total: total}
}

func (p *progress) setPhase(phase string) {
	p.mu.Lock()
	p.phase = phase
	p.mu.Unlock()
	if !p.tty {
		fmt.Fprintf(p.out, "[%s] %s\n", p.cell, phase)
	}
}

// track starts the live line for the workload phase.
func (p *progress) track(stats *kvupdate.Stats) {
	p.mu.Lock()
	p.stats, p.start = stats, time.Now()
	p.stop, p.done = make(chan struct{}), make(chan struct{})
	p.mu.Unlock()
	every := time.Second
	if !p.tty {
		every = 5 * time.Second
	}
	go func() {
		defer close(p.done)
		t := time.NewTicker(every)
		defer t.Stop()
		var lastOps int64
		last := time.Now()
		for {
			select {
			case <-p.stop:
				if p.tty {
					fmt.Fprint(p.out, "\r\033[K")
				}
				return
			case now := <-t.C:
				ops := stats.Ops.Load()
				rate := float64(ops-lastOps) / now.Sub(last).Seconds()
				lastOps, last = ops, now
				p.print(ops, rate)
			}
		}
	}()
}

func (p *progress) print(ops int64, rate float64) {
	p.mu.Lock()
	phase, elapsed := p.phase, time.Since(p.start)
	p.mu.Unlock()
	line := fmt.Sprintf("[%s] %s %s/%s  %d ops  %.0f ops/s  errors %d%s",
		p.cell, phase, elapsed.Truncate(time.Second), p.total, ops, rate, p.stats.Errors.Load(), errorKinds(p.stats))
	if p.tty {
		fmt.Fprintf(p.out, "\r\033[K%s", line)
	} else {
		fmt.Fprintln(p.out, line)
	}
}

func errorKinds(s *kvupdate.Stats) string {
	kinds := s.ErrorsByKind()
	if len(kinds) == 0 {
		return ""
	}
	var parts []string
	for k, v := range kinds {
		parts = append(parts, fmt.Sprintf("%s %d", k, v))
	}
	sort.Strings(parts)
	return " (" + strings.Join(parts, ", ") + ")"
}

func (p *progress) untrack() {
	p.mu.Lock()
	stop, done := p.stop, p.done
	p.stop = nil
	p.mu.Unlock()
	if stop != nil {
		close(stop)
		<-done
	}
}
