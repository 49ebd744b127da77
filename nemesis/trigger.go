package nemesis

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/watch"
)

// Trigger is the event a triggered fault waits for, and how long after it
// the fault is injected. For a due time (watch.Due) the delay counts from
// the due time itself and may be negative: due-1s injects a second before
// it, so the fault is in effect when the promise falls due.
type Trigger struct {
	Kind    watch.Kind
	Pattern *regexp.Regexp // Kind watch.Log: the line to wait for
	Delay   time.Duration
}

// String is the trigger as --nemesis takes it: "leader-change+200ms",
// "log:/Catchup for stream/".
func (t Trigger) String() string {
	s := string(t.Kind)
	if t.Kind == watch.Log {
		s = "log:/" + t.Pattern.String() + "/"
	}
	switch {
	case t.Delay > 0:
		s += "+" + t.Delay.String()
	case t.Delay < 0:
		s += "-" + (-t.Delay).String()
	}
	return s
}

// Matches says whether e fires the trigger.
func (t Trigger) Matches(e watch.Event) bool {
	if e.Kind != t.Kind {
		return false
	}
	return t.Kind != watch.Log || e.Pattern == t.Pattern.String()
}

// Triggered is a fault that fires when its trigger's event happens, not by
// the clock: `kill@leader-change+200ms`. The schedule arms it beside the
// clock's faults, and arms it again a quiet interval after each heal.
type Triggered struct {
	Fault   Fault
	Trigger Trigger
}

// Name is the fault and its trigger as --nemesis takes them.
func (t Triggered) Name() string { return t.Fault.Name() + "@" + t.Trigger.String() }

// Needs are the fault's, and the node logs for a log trigger.
func (t Triggered) Needs() []cluster.Capability {
	needs := t.Fault.Needs()
	if t.Trigger.Kind == watch.Log {
		needs = append(needs, cluster.CapLogs)
	}
	return needs
}

// Inject injects the fault (the schedule calls it when the event came).
func (t Triggered) Inject(ctx context.Context, env *Env) (Active, error) {
	return t.Fault.Inject(ctx, env)
}

// LogPatterns are the log lines the faults' triggers wait for: the watcher
// must report them.
func LogPatterns(faults []Fault) []*regexp.Regexp {
	var out []*regexp.Regexp
	for _, f := range faults {
		if t, ok := f.(Triggered); ok && t.Trigger.Kind == watch.Log {
			out = append(out, t.Trigger.Pattern)
		}
	}
	return out
}

// NeedsWatch says whether the faults need a watcher (package watch): a
// trigger, or a role only events can resolve.
func NeedsWatch(faults []Fault) bool {
	for _, f := range faults {
		if _, ok := f.(Triggered); ok {
			return true
		}
		if rolesOf(f, func(r Role) bool { return r.needsWatch() }) {
			return true
		}
	}
	return false
}

// parseTrigger reads what follows "@": an event kind or log:/regexp/, and
// an optional +DELAY.
func parseTrigger(s string) (Trigger, error) {
	var t Trigger
	rest := s
	if re, ok := strings.CutPrefix(s, "log:/"); ok {
		end := closingSlash(re)
		if end < 0 {
			return t, fmt.Errorf("trigger %q: a log pattern is log:/REGEXP/ (escape a / in it as \\/)", s)
		}
		p, err := regexp.Compile(strings.ReplaceAll(re[:end], `\/`, "/"))
		if err != nil {
			return t, fmt.Errorf("trigger %q: %v", s, err)
		}
		t.Kind, t.Pattern, rest = watch.Log, p, re[end+1:]
	} else if before, ok := strings.CutPrefix(s, string(watch.Due)+"-"); ok {
		d, err := time.ParseDuration(before)
		if err != nil || d <= 0 {
			return t, fmt.Errorf("trigger %q: before a due time comes -DELAY, a duration such as -500ms", s)
		}
		return Trigger{Kind: watch.Due, Delay: -d}, nil
	} else {
		kind, delay, _ := strings.Cut(s, "+")
		if !slices.Contains(watch.Kinds, watch.Kind(kind)) {
			return t, fmt.Errorf("trigger %q: want an event (%s) or log:/REGEXP/, with an optional +DELAY (due also -DELAY)", s, kindList())
		}
		t.Kind, rest = watch.Kind(kind), ""
		if delay != "" {
			rest = "+" + delay
		}
	}
	if rest == "" {
		return t, nil
	}
	d, err := time.ParseDuration(strings.TrimPrefix(rest, "+"))
	if !strings.HasPrefix(rest, "+") || err != nil || d < 0 {
		return t, fmt.Errorf("trigger %q: after the event comes +DELAY, a duration such as +200ms", s)
	}
	t.Delay = d
	return t, nil
}

// DueLead is how far ahead of a due time the watcher must announce it
// (watch.Options.DueLead): the earliest any due trigger injects.
func DueLead(faults []Fault) time.Duration {
	var lead time.Duration
	for _, f := range faults {
		if t, ok := f.(Triggered); ok && t.Trigger.Kind == watch.Due {
			lead = max(lead, -t.Trigger.Delay)
		}
	}
	return lead
}

// AimsAtDue says whether a fault waits for a due time, which only a
// workload that announces them can give.
func AimsAtDue(faults []Fault) bool {
	for _, f := range faults {
		if t, ok := f.(Triggered); ok && t.Trigger.Kind == watch.Due {
			return true
		}
	}
	return false
}

func kindList() string {
	names := make([]string, len(watch.Kinds))
	for i, k := range watch.Kinds {
		names[i] = string(k)
	}
	return strings.Join(names, ", ")
}

// closingSlash is the index of the first "/" in s not escaped by "\".
func closingSlash(s string) int {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '/':
			return i
		}
	}
	return -1
}

// splitOutside splits s at each sep that is not inside a log:/regexp/.
func splitOutside(s string, sep byte) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if strings.HasPrefix(s[i:], "log:/") {
			if end := closingSlash(s[i+5:]); end >= 0 {
				i += 5 + end
				continue
			}
		}
		if s[i] == sep {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}
