package nemesis

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/history"
	"github.com/jetstream-chaos/jetstream-chaos/watch"
)

func TestParseTriggersAndRoles(t *testing.T) {
	cases := []struct {
		list  string
		names []string // each fault's Name, as given back
		err   string
	}{
		{list: "kill@leader-change", names: []string{"kill@leader-change"}},
		{list: "kill:old-leader@leader-change+200ms", names: []string{"kill:old-leader@leader-change+200ms"}},
		{list: "partition-leader+kill:catching-up@catchup-start", names: []string{"partition-leader+kill:catching-up@catchup-start"}},
		{list: "stepdown@snapshot", names: []string{"stepdown@snapshot"}},
		{list: "kill@log:/Catchup for stream/", names: []string{"kill@log:/Catchup for stream/"}},
		{list: "restart,kill:event-node@log:/a,b+c\\/d/+1s", names: []string{"restart", "kill:event-node@log:/a,b+c/d/+1s"}},
		{list: "wipe,partition-leader@catchup-start", names: []string{"wipe", "partition-leader@catchup-start"}},
		{list: "kill:leader", names: []string{"kill:leader"}},
		{list: "kill@earthquake", err: "want an event"},
		{list: "kill@leader-change+soon", err: "+DELAY"},
		{list: "kill@leader-change+-1s", err: "+DELAY"},
		{list: "kill@due", names: []string{"kill@due"}},
		{list: "kill:leader@due-1s", names: []string{"kill:leader@due-1s"}},
		{list: "partition-leader@due+500ms", names: []string{"partition-leader@due+500ms"}},
		{list: "kill@due-0s", err: "-DELAY"},
		{list: "kill@due-soon", err: "-DELAY"},
		{list: "kill@leader-change-1s", err: "want an event"},
		{list: "kill@log:/unclosed", err: "log:/REGEXP/"},
		{list: "kill@log:/(/", err: "missing closing )"},
		{list: "partition-halves:leader", err: "only faults that hit one node take a role"},
		{list: "kill:boss", err: "the role is one of"},
		{list: "none@leader-change", err: "cannot be combined with other faults or triggered"},
	}
	for _, c := range cases {
		t.Run(c.list, func(t *testing.T) {
			fs, err := Parse(c.list)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want one naming %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, f := range fs {
				names = append(names, f.Name())
			}
			if strings.Join(names, " | ") != strings.Join(c.names, " | ") {
				t.Fatalf("%q, want %q", names, c.names)
			}
		})
	}
}

// armedRun runs list on a fake cluster of 3 with a watcher, calls during
// while it runs, and returns the windows once stop says so.
func armedRun(t *testing.T, list string, during func(f *fake, w *watch.Watcher), hold time.Duration) []Window {
	t.Helper()
	faults, err := Parse(list)
	if err != nil {
		t.Fatal(err)
	}
	f, env := testEnv(t, 3)
	rec, err := history.NewRecorder(filepath.Join(t.TempDir(), "history.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	ctx, cancel := context.WithTimeout(context.Background(), hold)
	defer cancel()
	env.Watch = watch.Start(ctx, watch.Options{Cluster: f, Stream: fakeStream, Every: 10 * time.Millisecond,
		Since: func(t time.Time) time.Duration { return t.Sub(rec.Start()) }, DueLead: DueLead(faults)})
	if err := env.Watch.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	go during(f, env.Watch)
	return Schedule{Faults: faults, Interval: 50 * time.Millisecond, Seed: 1}.Run(ctx, env, rec)
}

// TestTriggeredFires: a leader change fires kill aimed at the new leader,
// which is the window's target; the window keeps the event and when the
// kill took effect, after the event.
func TestTriggeredFires(t *testing.T) {
	ws := armedRun(t, "kill:new-leader@leader-change", func(f *fake, _ *watch.Watcher) {
		time.Sleep(100 * time.Millisecond)
		f.mu.Lock()
		f.leader = 2
		f.mu.Unlock()
	}, time.Second)
	if len(ws) == 0 {
		t.Fatal("no window")
	}
	w := ws[0]
	d, ok := w.EventToEffect()
	switch {
	case w.Event == nil || w.Event.Kind != watch.LeaderChange || w.Event.Node != "n3" || w.Trigger != "leader-change":
		t.Fatalf("window %+v: want one fired by the leader change to n3", w)
	case !w.Injected || len(w.Targets) != 1 || w.Targets[0] != "n3":
		t.Fatalf("window %+v: want n3, the new leader, killed", w)
	case !ok || d < 0 || d > 500*time.Millisecond:
		t.Fatalf("event to effect %s (%v), want a little after the event", d, ok)
	case !strings.Contains(w.Detail, "fired by leader-change to n3 (from n1)"):
		t.Fatalf("detail %q", w.Detail)
	}
}

// TestDueTriggerLandsBeforeTheDueTime: a fault aimed 150ms before a due
// time the workload announced goes in then, so it is in effect when the
// time comes, and says where it landed; a second promise due at the same
// instant is the same event, and the lead is the earliest trigger's.
func TestDueTriggerLandsBeforeTheDueTime(t *testing.T) {
	var due time.Time
	ws := armedRun(t, "kill@due-150ms", func(_ *fake, w *watch.Watcher) {
		due = time.Now().Add(400 * time.Millisecond).Truncate(time.Millisecond)
		w.Announce(due, "expiry of t0")
		w.Announce(due, "expiry of t1")
		w.Announce(time.Now().Add(-time.Second), "already past")
	}, time.Second)
	if len(ws) == 0 {
		t.Fatal("no window")
	}
	w := ws[0]
	switch {
	case w.Event == nil || w.Event.Kind != watch.Due || w.Event.Line != "expiry of t0" || w.Trigger != "due-150ms":
		t.Fatalf("window %+v: want one fired by t0's due time", w)
	case !w.Injected || w.Start > w.Event.Due || w.Event.Due-w.Start > 250*time.Millisecond:
		t.Fatalf("window began at %s, due at %s: want it in effect from about 150ms before", w.Start, w.Event.Due)
	case !strings.Contains(w.Detail, "before it)") || !strings.Contains(w.Detail, "announced by the workload"):
		t.Fatalf("detail %q: want where it landed against the due time", w.Detail)
	}
	if lead := DueLead(mustParse(t, "kill@due-1s,stepdown@due+2s,restart@due-300ms")); lead != time.Second {
		t.Fatalf("lead %s, want the earliest injection's 1s", lead)
	}
}

func mustParse(t *testing.T, list string) []Fault {
	t.Helper()
	fs, err := Parse(list)
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

// TestTriggerNeverFires: a trigger whose event never comes is one window,
// not injected, that says so.
func TestTriggerNeverFires(t *testing.T) {
	ws := armedRun(t, "kill@snapshot", func(*fake, *watch.Watcher) {}, 300*time.Millisecond)
	if len(ws) != 1 || ws[0].Injected || ws[0].Event != nil || !strings.Contains(ws[0].Detail, "never fired: no snapshot event") {
		t.Fatalf("%+v, want one window saying the trigger never fired", ws)
	}
}

// TestRoleNobody: a role that names nobody now injects nothing and says
// why.
func TestRoleNobody(t *testing.T) {
	ws := armedRun(t, "kill:catching-up", func(*fake, *watch.Watcher) {}, 200*time.Millisecond)
	if len(ws) == 0 || ws[0].Injected || !strings.Contains(ws[0].Detail, "no replica is catching up now") {
		t.Fatalf("%+v, want a window not injected: nobody catches up", ws)
	}
}

// slowKill is a cluster whose Kill returns long after the process died, as
// the Docker daemon's call can.
type slowKill struct{ *fake }

func (s slowKill) Kill(ctx context.Context, i int) error {
	err := s.fake.Kill(ctx, i)
	time.Sleep(300 * time.Millisecond)
	return err
}

// TestKillTakesEffectWhenTheProcessEnds: a kill's effect is the instant
// the runtime saw the process exit, not when its call returned.
func TestKillTakesEffectWhenTheProcessEnds(t *testing.T) {
	faults, err := Parse("kill")
	if err != nil {
		t.Fatal(err)
	}
	f, env := testEnv(t, 3)
	env.Cluster = slowKill{f}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ws := Schedule{Faults: stopAfter(1, cancel, faults), Interval: 10 * time.Millisecond, Seed: 1}.Run(ctx, env, nil)
	if len(ws) != 1 || ws[0].Effect == 0 {
		t.Fatalf("windows %+v: want one with its effect", ws)
	}
	if d := ws[0].Effect - ws[0].Start; d >= 300*time.Millisecond {
		t.Fatalf("effect %s after the window began: the kill's return, not the process's end", d)
	}
}
