package watch

import "time"

// Announce tells the watcher that something the workload promised falls
// due at at (a TTL key expires, a schedule fires): a Due event comes
// Options.DueLead before it, so a fault can be aimed at that instant
// (kill@due, partition-leader@due-1s). Several promises due at one instant,
// to the millisecond, are one event, named by the first; a time already
// past is dropped, since no fault can land on it any more.
func (w *Watcher) Announce(at time.Time, what string) {
	due := w.opts.Since(at).Truncate(time.Millisecond)
	wait := time.Until(at.Add(-w.opts.DueLead))
	if time.Until(at) <= 0 || w.ctx.Err() != nil {
		return
	}
	w.mu.Lock()
	seen := w.dues[due]
	w.dues[due] = true
	w.mu.Unlock()
	if seen {
		return
	}
	time.AfterFunc(max(wait, 0), func() {
		if w.ctx.Err() != nil {
			return
		}
		w.add(Event{Kind: Due, At: w.opts.Since(time.Now()), Due: due, Line: what, Source: "workload"})
	})
}
