package watch

import (
	"bufio"
	"context"
	"regexp"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/internal/ctxtime"
)

// Lines nats-server logs when leadership changes (server/jetstream_cluster.go:
// processStreamLeaderChange, processLeaderChange): the new stream leader logs
// the first; every server logs one of the others for the meta group.
var (
	streamLeaderLine = regexp.MustCompile(`JetStream cluster new stream leader for '[^']* > ([^']*)'`)
	metaSelfLine     = regexp.MustCompile(`Self is new JetStream cluster metadata leader`)
	metaLeaderLine   = regexp.MustCompile(`JetStream cluster new metadata leader: ([^/\s]+)`)
	// logTime is the time nats-server starts a line with: "[1] 2026/12/02
	// 06:06:00.276030 [INF] ...".
	logTime = regexp.MustCompile(`^\[\d+\] (\d{4}/\d{2}/\d{2} \d{2}:\d{2}:\d{2}\.\d{6}) `)
)

// follow reads node i's log while ctx lasts, following it again after the
// node restarts; lines logged before started (the watcher's start) tell of
// nothing.
func (w *Watcher) follow(ctx context.Context, f cluster.LogFollower, i int, started time.Time) {
	for ctx.Err() == nil {
		rc, err := f.FollowLog(ctx, i)
		if err != nil {
			// Not running: follow it as soon as it runs again. What a new
			// process logs before then is not seen (the runtimes follow
			// from "now"), so ask often.
			ctxtime.Sleep(ctx, refollowEvery)
			continue
		}
		sc := bufio.NewScanner(rc)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			if e, ok := w.fromLine(i, sc.Text(), started); ok {
				w.add(e)
			}
		}
		rc.Close()
	}
}

// refollowEvery is how often a node that is not running is asked for its
// log again.
const refollowEvery = 50 * time.Millisecond

// fromLine is the event a log line of node i tells of, if any. Lines
// written before the watcher started (a runtime may replay some) tell of
// nothing.
func (w *Watcher) fromLine(i int, line string, started time.Time) (Event, bool) {
	at := time.Now()
	if m := logTime.FindStringSubmatch(line); m != nil {
		// The server writes its local time; the nodes share the host's
		// clock, and a scratch image has no zone but UTC. A time half an
		// hour or more from now is another zone's: the line's arrival is
		// then its time.
		if t, err := time.ParseInLocation("2006/01/02 15:04:05.000000", m[1], time.UTC); err == nil && t.Sub(at).Abs() < 30*time.Minute {
			at = t
		}
	}
	if at.Before(started) {
		return Event{}, false
	}
	node := ""
	if ns := w.opts.Cluster.Nodes(); i < len(ns) {
		node = ns[i].Name
	}
	e := Event{At: w.opts.Since(at), Node: node, Line: line, Source: "log"}
	switch {
	case w.opts.Stream != "" && matchStream(streamLeaderLine, line, w.opts.Stream):
		e.Kind = LeaderChange
	case metaSelfLine.MatchString(line):
		e.Kind = MetaLeaderChange
	case metaLeaderLine.MatchString(line):
		e.Kind, e.Node = MetaLeaderChange, metaLeaderLine.FindStringSubmatch(line)[1]
	default:
		for _, p := range w.opts.Patterns {
			if p.MatchString(line) {
				e.Kind, e.Pattern = Log, p.String()
				return e, true
			}
		}
		return Event{}, false
	}
	return e, true
}

func matchStream(re *regexp.Regexp, line, stream string) bool {
	m := re.FindStringSubmatch(line)
	return m != nil && m[1] == stream
}
