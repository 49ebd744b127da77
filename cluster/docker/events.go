package docker

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/moby/moby/api/types/events"
	"github.com/moby/moby/client"
)

// watchEvents follows the daemon's events for this cluster's containers
// until Close: "oom" counts OOM kills (inspect only remembers the last
// exit), once per life of the container (oomOnce); "start" puts the
// partition back on a node Docker restarted by itself. If the stream breaks it reconnects from the last event seen.
func (c *dockerCluster) watchEvents() {
	ctx, cancel := context.WithCancel(context.Background())
	c.stopWatch, c.watchDone = cancel, make(chan struct{})
	f := make(client.Filters).
		Add("type", string(events.ContainerEventType)).
		Add("label", labelCluster+"="+c.id).
		Add("event", string(events.ActionOOM), string(events.ActionStart))
	since := time.Now()
	var last int64 // TimeNano of the last event handled, to skip replays
	go func() {
		defer close(c.watchDone)
		for ctx.Err() == nil {
			res := c.cli.Events(ctx, client.EventsListOptions{Filters: f, Since: unixNano(since)})
		stream:
			for {
				select {
				case <-ctx.Done():
					return
				case <-res.Err:
					break stream
				case m := <-res.Messages:
					if m.TimeNano <= last {
						continue
					}
					last = m.TimeNano
					since = time.Unix(0, m.TimeNano)
					c.handleEvent(ctx, m)
				}
			}
			select { // daemon gone or restarting: retry gently
			case <-ctx.Done():
				return
			case <-time.After(time.Second):
			}
		}
	}()
}

func (c *dockerCluster) handleEvent(ctx context.Context, m events.Message) {
	i := c.nodeIndex(m.Actor.Attributes[labelNode])
	if i < 0 {
		return
	}
	switch m.Action {
	case events.ActionOOM:
		c.mu.Lock()
		c.oomOnce(i)
		c.mu.Unlock()
	case events.ActionStart:
		c.mu.Lock()
		c.oomLife[i] = false
		faulted := c.groups != nil || c.shapedLocked()
		c.mu.Unlock()
		if faulted {
			go func() {
				actx, cancel := context.WithTimeout(ctx, 30*time.Second)
				defer cancel()
				c.applyNetwork(actx) // best effort; State shows the restart
			}()
		}
	}
}

// oomOnce counts an "oom" event as an OOM kill unless one was counted
// since the node's last start. The node's only process is nats-server, so
// one kill ends the container's life, but cgroup v1 notifies an OOM for
// each thread whose charge failed: seed-loop on v2.15.3 showed 4 "oom"
// events and 3 restarts, two events at one death (nodes.jsonl: oom_kills
// 2 -> 4 within one started_at). c.mu is held.
func (c *dockerCluster) oomOnce(i int) {
	if !c.oomLife[i] {
		c.oomKills[i]++
		c.oomLife[i] = true
	}
}

func (c *dockerCluster) nodeIndex(name string) int {
	for i, n := range c.nodes {
		if n.slot == name {
			return i
		}
	}
	return -1
}

// unixNano formats t as the daemon's "seconds.nanoseconds" timestamps.
func unixNano(t time.Time) string {
	return strconv.FormatInt(t.Unix(), 10) + "." + fmt.Sprintf("%09d", t.Nanosecond())
}
