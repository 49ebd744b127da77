package followtest

import (
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// leaderLines holds the nodes that logged the stream leader line, read on
// from the first one until the test ends, so that no follower blocks.
type leaderLines struct {
	mu     sync.Mutex
	by     map[int]bool
	change chan struct{} // closed and replaced on each new node
}

// keepLeaderLines reads lines until the test ends, keeping the nodes that
// logged a line holding text (each such line checked by seen) beside first,
// the node that logged the first one, and dropping the rest.
func keepLeaderLines(t *testing.T, lines <-chan Line, text string, first int, seen func(Line)) *leaderLines {
	ll := &leaderLines{by: map[int]bool{first: true}, change: make(chan struct{})}
	stop, done := make(chan struct{}), make(chan struct{})
	t.Cleanup(func() { close(stop); <-done }) // seen must not run after the test
	go func() {
		defer close(done)
		for {
			select {
			case l := <-lines:
				if strings.Contains(l.Text, text) {
					seen(l)
					ll.add(l.Node)
				}
			case <-stop:
				return
			}
		}
	}()
	return ll
}

func (ll *leaderLines) add(node int) {
	ll.mu.Lock()
	defer ll.mu.Unlock()
	if !ll.by[node] {
		ll.by[node] = true
		close(ll.change)
		ll.change = make(chan struct{})
	}
}

// logged reports whether node logged the line, waiting up to within for it.
func (ll *leaderLines) logged(node int, within time.Duration) bool {
	deadline := time.After(within)
	for {
		ll.mu.Lock()
		ok, change := ll.by[node], ll.change
		ll.mu.Unlock()
		if ok {
			return true
		}
		select {
		case <-change:
		case <-deadline:
			return false
		}
	}
}

func (ll *leaderLines) nodes() []int {
	ll.mu.Lock()
	defer ll.mu.Unlock()
	var ns []int
	for n := range ll.by {
		ns = append(ns, n)
	}
	sort.Ints(ns)
	return ns
}
