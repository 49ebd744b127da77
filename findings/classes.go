package findings

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/checker/replicas"
	"github.com/jetstream-chaos/jetstream-chaos/history"
	"github.com/jetstream-chaos/jetstream-chaos/observe"
)

// Class is what a finding knows about one anomaly kind of one check: the
// section's anchor (Slug, unique across workloads), its heading in the
// client's terms, the promise it breaks, and its place in the file.
type Class struct {
	Check, Kind string
	Slug        string
	Title       string
	// Promise is what the client was promised, in its API's terms, with
	// the upstream source that makes it.
	Promise string
	// Rank orders sections: lower first, lost data before wrong answers.
	Rank int
}

// classes are the built-in classes: the nodes' (observe.Check, every
// workload's) and kv-update's (kv.go); other workloads register theirs
// (RegisterClasses).
var classes = append([]Class{
	{nodeHealth, "oom_kill", "oom-kill", "A server was killed for running out of memory", promiseAlive, 1},
	{nodeHealth, "restart", "unexplained-restart", "A server died by itself and was restarted", promiseAlive, 1},
	{nodeHealth, "died", "server-died", "A server died by itself", promiseAlive, 1},
	{replicas.NameDivergence, replicas.KindStuckCurrent, "replica-stuck-current",
		"A replica stayed behind while the cluster called it current", promiseCurrent, 3},
}, kvClasses...)

const nodeHealth = observe.CheckName

const promiseCurrent = "A stream's info (`js.Stream(...).Info()`, `nats stream info`) calls a replica current when it has caught up " +
	"with the leader (nats-server jetstream_cluster.go, clusterInfo: `PeerInfo.Current` is the raft peer's `Current`). Operators read " +
	"it before a restart or a peer removal, and the cluster may elect a current replica leader: one called current must hold what " +
	"the leader holds, or catch up within a moment once no client is writing."

const promiseAlive = "A nats-server keeps running until it is stopped: it does not exit by itself, and it keeps within the memory " +
	"it is given (its container's or machine's memory limit, against which the kernel kills a process that goes over it), " +
	"whatever the clients send and whatever its peers do."

var (
	registryMu sync.RWMutex
	registered = map[string][]Class{} // by check, in registration order
)

// RegisterClasses adds a workload's finding classes; its view package
// calls it from an init function, beside reports.RegisterView. A check
// with registered classes gets a section only for those of its kinds: the
// kinds it counts as unknown (an unsure case) are not anomalies. It panics
// on a class without check or slug, or a slug or check and kind already
// taken: programming errors found at start.
func RegisterClasses(cs ...Class) {
	registryMu.Lock()
	defer registryMu.Unlock()
	for _, c := range cs {
		if c.Check == "" || c.Slug == "" || c.Title == "" {
			panic(fmt.Sprintf("findings: class %+v needs a check, a slug and a title", c))
		}
		if _, taken := lookupClass(c.Check, c.Kind); taken || slugTaken(c.Slug) {
			panic("findings: class " + c.Check + "/" + c.Kind + " (" + c.Slug + ") registered twice")
		}
		if builtIn(c.Check) { // its built-in kinds would lose their sections
			panic("findings: check " + c.Check + " has built-in classes")
		}
		registered[c.Check] = append(registered[c.Check], c)
	}
}

// Classes lists every class: the built-in ones, then the registered ones
// by check in registration order.
func Classes() []Class {
	registryMu.RLock()
	defer registryMu.RUnlock()
	out := append([]Class(nil), classes...)
	checks := make([]string, 0, len(registered))
	for c := range registered {
		checks = append(checks, c)
	}
	sort.Strings(checks)
	for _, c := range checks {
		out = append(out, registered[c]...)
	}
	return out
}

func builtIn(check string) bool {
	for _, c := range classes {
		if c.Check == check {
			return true
		}
	}
	return false
}

func slugTaken(slug string) bool {
	for _, c := range classes {
		if c.Slug == slug {
			return true
		}
	}
	for _, cs := range registered {
		for _, c := range cs {
			if c.Slug == slug {
				return true
			}
		}
	}
	return false
}

func classOf(check, kind string) (Class, bool) {
	registryMu.RLock()
	defer registryMu.RUnlock()
	return lookupClass(check, kind)
}

func lookupClass(check, kind string) (Class, bool) {
	for _, c := range classes {
		if c.Check == check && c.Kind == kind {
			return c, true
		}
	}
	for _, c := range registered[check] {
		if c.Kind == kind {
			return c, true
		}
	}
	return Class{}, false
}

// registeredKinds are the kinds of r that a workload registered classes
// for and r found (examples or counts), in registration order; ok is
// false when r's check registered none.
func registeredKinds(r *checker.Result) (kinds []string, ok bool) {
	registryMu.RLock()
	defer registryMu.RUnlock()
	cs, ok := registered[r.Name]
	if !ok {
		return nil, false
	}
	for _, c := range cs {
		found := r.Counts[c.Kind] > 0
		for _, a := range r.Anomalies {
			found = found || a.Kind == c.Kind
		}
		if found {
			kinds = append(kinds, c.Kind)
		}
	}
	return kinds, true
}

// sections finds the cell's anomaly classes: one section for each anomaly
// kind of an invalid check (a check without examples is one class).
func sections(c *cell) []section {
	type ranked struct {
		s    section
		rank int
	}
	var out []ranked
	for i := range c.res.Checks {
		r := &c.res.Checks[i]
		if r.Verdict != checker.Invalid {
			continue
		}
		for _, kind := range invalidKinds(r) {
			cl, known := classOf(r.Name, kind)
			var s section
			switch {
			case kind == kvFailedWriteApplied:
				s = c.failedWriteApplied(r, cl)
			case kind == kvLostWrite:
				s = c.lostWrites(r, cl)
			case r.Name == kvAttribution && kind == kvSpurious:
				s = c.spurious(r, cl)
			case known:
				s = c.generic(r, cl)
			default:
				cl = Class{Check: r.Name, Kind: kind, Slug: slug(r.Name, kind), Title: checkTitle(r), Rank: 7}
				s = c.generic(r, cl)
			}
			s.happened = append(s.happened, c.knownSignatures(r.Name)...)
			if r.Name != nodeHealth { // a server's death is no store's rollback
				s.caveat = c.powerLossCaveat()
				s.f.AfterPowerLoss = s.caveat != "" && c.run.SyncInterval != "always"
			}
			out = append(out, ranked{s, cl.Rank})
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].rank < out[b].rank })
	secs := make([]section, len(out))
	for i, r := range out {
		secs[i] = r.s
	}
	return secs
}

// invalidKinds are the anomaly kinds that make a check invalid, in the
// order of its examples; a check with none is one kind, "".
func invalidKinds(r *checker.Result) []string {
	if kinds, ok := registeredKinds(r); ok {
		if len(kinds) == 0 {
			kinds = []string{""}
		}
		return kinds
	}
	var kinds []string
	seen := map[string]bool{}
	add := func(k string) {
		if !seen[k] {
			seen[k] = true
			kinds = append(kinds, k)
		}
	}
	for _, a := range r.Anomalies {
		if !countsAsAnomaly(r, a) {
			continue
		}
		add(a.Kind)
	}
	// A kind counted but with no example kept (examples are capped).
	for _, k := range kvCountedKinds(r) {
		add(k)
	}
	if len(kinds) == 0 {
		kinds = append(kinds, "")
	}
	return kinds
}

// countsAsAnomaly leaves out the examples a check keeps that are not
// anomalies (kv-update's wrong-last-seq keeps some; kvIsAnomaly).
func countsAsAnomaly(r *checker.Result, a checker.Anomaly) bool {
	if r.Name != kvAttribution {
		return true
	}
	return kvIsAnomaly(a)
}

func slug(check, kind string) string {
	s := check
	if kind != "" {
		s += "-" + kind
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "_", "-"), " ", "-")
}

func checkTitle(r *checker.Result) string {
	return fmt.Sprintf("The %s check failed", r.Name)
}

// count is how many of kind the check counted: its count of that name,
// else its examples.
func count(r *checker.Result, kind string) int {
	if n, ok := kvCount(r, kind); ok {
		return n
	}
	if n, ok := r.Counts[kind]; ok && kind != "" {
		return n
	}
	n := 0
	for _, a := range r.Anomalies {
		if a.Kind == kind {
			n++
		}
	}
	return n
}

// generic is the section of a class without its own builder: the check's
// summary, its examples with their ops and stream entries, the faults and
// logs around them.
func (c *cell) generic(r *checker.Result, cl Class) section {
	n := count(r, cl.Kind)
	s := section{f: Finding{Class: cl.Slug, Title: cl.Title, Check: r.Name, Kind: cl.Kind, Count: n}}
	s.f.Summary = fmt.Sprintf("The %s check: %s.", r.Name, strings.TrimSuffix(r.Summary, "."))
	s.promise = cl.Promise
	if s.promise == "" {
		s.promise = fmt.Sprintf("The %s check's expectation (see its documentation in jetstream-chaos): %s", r.Name, r.Summary)
	}
	keep := func(a checker.Anomaly) bool { return a.Kind == cl.Kind && countsAsAnomaly(r, a) }
	var examples []checker.Anomaly
	for _, a := range r.Anomalies {
		if keep(a) {
			examples = append(examples, a)
		}
	}
	s.happened = append(s.happened, fmt.Sprintf("The %s check counted %s (%s).", r.Name, plural(n, "case", "cases"), r.Summary))
	const shown = 5
	var ops []history.Op
	var entries []history.Entry
	seen := map[string]bool{}
	for i, a := range examples {
		if i < shown {
			s.happened = append(s.happened, "- "+a.Description)
		}
		for _, ref := range a.Ops {
			op, ok := c.opOf(ref)
			// One Fetch's deliveries share its client and invoke time: the
			// index tells them apart.
			if id := fmt.Sprintf("%d|%s", ref.Index, opID(op)); ok && !seen[id] && len(ops) < 20 {
				seen[id] = true
				ops = append(ops, op)
			}
		}
		entries = append(entries, a.Entries...)
	}
	if len(examples) > shown {
		s.happened = append(s.happened, fmt.Sprintf("(%d more examples in the cell's results.json.)", len(examples)-shown))
	}
	sortOps(ops)
	s.ops = ops
	if len(entries) > 0 {
		t := table{title: "The stream entries involved", header: []string{"seq", "key", "value"}}
		for _, e := range entries {
			t.rows = append(t.rows, []string{fmt.Sprint(e.Seq), e.Key, e.Value})
		}
		s.tables = append(s.tables, t)
	}
	s.opSpan = opsSpan(ops)
	s.logSpans = c.opMoments(ops)
	s.allFaults = len(ops) == 0
	if len(ops) == 0 {
		s.timeline = c.logEvents(timelinePatterns)
		for _, e := range s.timeline {
			s.logSpans = append(s.logSpans, e.at)
		}
	}
	s.byHand = c.byHand(s)
	return s
}

// opOf is the op a reference names: the op it carries, or, where a check
// named only its index (the workloads' own checks do), the history's op
// at that index. ok is false when neither is there: no empty row.
func (c *cell) opOf(ref checker.OpRef) (history.Op, bool) {
	if ref.Op.Type != "" {
		return ref.Op, true
	}
	if ref.Index >= 0 && ref.Index < len(c.ops) {
		return c.ops[ref.Index], true
	}
	return history.Op{}, false
}
