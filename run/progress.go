package run

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/record"
	"github.com/jetstream-chaos/jetstream-chaos/workloads"
)

// progress prints one live line for every workload: phase, ops/s, errors,
// the fault in effect, elapsed of total. On a terminal it rewrites the
// line; elsewhere (CI logs) it prints a line every few seconds. Workloads
// never print: they set phases and log through logf, and the line counts
// the ops the history records. The same line, the phase and the fault
// windows so far go to the run's live.json every second (chaos serve).
type progress struct {
	out   io.Writer
	tty   bool
	cell  string
	total time.Duration
	dir   string // the run folder, for live.json; "" writes none

	mu     sync.Mutex
	phase  string
	fault  string
	timed  bool
	start  time.Time
	stats  func() record.OpCounts
	online workloads.LiveChecker
	stop   chan struct{}
	done   chan struct{}
	line   string
	wins   []record.LiveWindow
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func newProgress(out *os.File, cell string, total time.Duration, dir string) *progress {
	return &progress{out: out, tty: isTerminal(out), cell: cell, total: total, dir: dir}
}

func (p *progress) setPhase(phase string) {
	p.mu.Lock()
	p.phase, p.line = phase, ""
	p.writeLive()
	p.mu.Unlock()
	if !p.tty {
		fmt.Fprintf(p.out, "[%s] %s\n", p.cell, phase)
	}
}

// setFault is the nemesis' hook: the fault in effect, "" once healed.
func (p *progress) setFault(fault string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.elapsed()
	if n := len(p.wins); n > 0 && p.wins[n-1].End == 0 {
		p.wins[n-1].End = max(now, p.wins[n-1].Start+0.001) // a window lasts, if only a moment
	}
	if fault != "" {
		p.wins = append(p.wins, record.LiveWindow{Fault: fault, Start: now})
	}
	p.fault = fault
	p.writeLive()
}

// elapsed is the seconds since the workload began (0 before it did).
func (p *progress) elapsed() float64 {
	if p.start.IsZero() {
		return 0
	}
	return time.Since(p.start).Seconds()
}

// writeLive replaces live.json; p.mu is held. A write that fails costs
// the live view only, never the run.
func (p *progress) writeLive() {
	if p.dir == "" {
		return
	}
	_ = record.WriteLive(p.dir, record.Live{Cell: p.cell, Phase: p.phase, Line: p.line, Fault: p.fault,
		Windows: p.wins, Elapsed: p.elapsed()})
}

// logf wraps a line printer so that a log line never lands in the middle
// of the live line.
func (p *progress) logf(print func(string, ...any)) func(string, ...any) {
	return func(format string, args ...any) {
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.tty {
			fmt.Fprint(p.out, "\r\033[K")
		}
		print(format, args...)
	}
}

// watchOnline adds the online checks' counts to the live line.
func (p *progress) watchOnline(c workloads.LiveChecker) {
	p.mu.Lock()
	p.online = c
	p.mu.Unlock()
}

// track starts the live line for the workload phase.
func (p *progress) track(stats func() record.OpCounts, timed bool) {
	p.mu.Lock()
	p.stats, p.start, p.timed = stats, time.Now(), timed
	// The ticker holds its own channels: untrack clears the fields before
	// it closes stop, and a ticker that read the cleared field between
	// two lines would wait on a nil channel forever.
	stop, done := make(chan struct{}), make(chan struct{})
	p.stop, p.done = stop, done
	p.mu.Unlock()
	// The line is made every second, for live.json; a log that is not a
	// terminal prints every fifth.
	printEvery := 1
	if !p.tty {
		printEvery = 5
	}
	go func() {
		defer close(done)
		t := time.NewTicker(time.Second)
		defer t.Stop()
		var lastOps int
		last := time.Now()
		for tick := 1; ; tick++ {
			select {
			case <-stop:
				if p.tty {
					fmt.Fprint(p.out, "\r\033[K")
				}
				return
			case now := <-t.C:
				if tick%printEvery != 0 && p.dir == "" {
					continue
				}
				s := stats()
				rate := float64(s.Total-lastOps) / now.Sub(last).Seconds()
				lastOps, last = s.Total, now
				p.print(s, rate, tick%printEvery == 0)
			}
		}
	}()
}

func (p *progress) print(s record.OpCounts, rate float64, show bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	elapsed := time.Since(p.start).Truncate(time.Second).String()
	if p.timed {
		elapsed += "/" + p.total.String()
	}
	fault := ""
	if p.fault != "" {
		fault = "  fault " + p.fault
	}
	if p.online != nil {
		fault += "  so far: " + p.online.Tally().Line()
	}
	line := fmt.Sprintf("[%s] %s %s  %d ops  %.0f ops/s  errors %d%s%s",
		p.cell, p.phase, elapsed, s.Total, rate, errorCount(s.ErrorsByKind), errorKinds(s.ErrorsByKind), fault)
	p.line = line
	p.writeLive()
	if !show {
		return
	}
	if p.tty {
		fmt.Fprintf(p.out, "\r\033[K%s", line)
	} else {
		fmt.Fprintln(p.out, line)
	}
}

// errorCount is how many ops ended with an error: an op indeterminate by
// nature (queue's fire-and-forget ack) carries none and is not one.
func errorCount(kinds map[string]int) int {
	n := 0
	for _, v := range kinds {
		n += v
	}
	return n
}

func errorKinds(kinds map[string]int) string {
	var parts []string
	for k, v := range kinds {
		if v > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", k, v))
		}
	}
	if len(parts) == 0 {
		return ""
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
