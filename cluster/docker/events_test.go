package docker

import (
	"context"
	"testing"

	"github.com/moby/moby/api/types/events"
)

// An OOM kill counts once per life of a node's container, however many
// "oom" events cgroup v1 sends for it; a start begins a new life.
func TestOOMEventsCountOncePerLife(t *testing.T) {
	for _, tc := range []struct {
		name    string
		actions []events.Action
		want    int
	}{
		{"none", nil, 0},
		{"one kill", []events.Action{"oom"}, 1},
		{"two events at one death (seed-loop, v2.15.3)", []events.Action{"oom", "oom"}, 1},
		{"three deaths, one with two events", []events.Action{"oom", "start", "oom", "start", "oom", "oom", "start"}, 3},
		{"a start before any kill", []events.Action{"start", "oom", "start", "oom"}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &dockerCluster{nodes: []*node{{slot: "n1"}, {slot: "n2"}}, oomKills: map[int]int{}, oomLife: map[int]bool{}}
			for _, a := range tc.actions {
				c.handleEvent(context.Background(), events.Message{Action: a, Actor: events.Actor{Attributes: map[string]string{labelNode: "n2"}}})
			}
			if c.oomKills[1] != tc.want || c.oomKills[0] != 0 {
				t.Errorf("OOM kills n1 %d n2 %d, want 0 and %d", c.oomKills[0], c.oomKills[1], tc.want)
			}
		})
	}
}
