package nemesis

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// Role is whom a single-node fault aims at: `kill:old-leader`.
type Role string

// The roles. Random is every single-node fault's default.
const (
	RoleRandom     Role = "random"
	RoleLeader     Role = "leader"      // the stream's leader now
	RoleNewLeader  Role = "new-leader"  // the newest leader the events told of
	RoleOldLeader  Role = "old-leader"  // the leader it replaced, just deposed
	RoleCatchingUp Role = "catching-up" // the replica that most recently started catching up, not yet current
	RoleEventNode  Role = "event-node"  // the node the triggering event names (the one that logged the line)
)

// Roles lists the roles, for help and errors.
var Roles = []Role{RoleRandom, RoleLeader, RoleNewLeader, RoleOldLeader, RoleCatchingUp, RoleEventNode}

// needsWatch says whether only the events (package watch) can resolve r.
func (r Role) needsWatch() bool {
	return r == RoleNewLeader || r == RoleOldLeader || r == RoleCatchingUp || r == RoleEventNode
}

// AimableFaults lists the faults that hit one node, which a role can aim.
func AimableFaults() []string { return slices.Clone(aimable) }

// aimable lists the faults that hit one node a role can choose.
var aimable = []string{"kill", "restart", "pause", "wipe", "catchup", "power-loss", "pause-kill", "partition-one",
	"member-replace", "latency", "loss", "bandwidth"}

// aimed is a single-node fault aimed at the node a role names when it is
// injected.
type aimed struct {
	Fault
	role Role
}

func (a aimed) Name() string { return a.Fault.Name() + ":" + string(a.role) }

// Inject resolves the role now and injects the fault at that node. A role
// that names nobody now (no replica is catching up) injects nothing and
// says so.
func (a aimed) Inject(ctx context.Context, env *Env) (Active, error) {
	node, err := env.resolve(ctx, a.role)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", a.Name(), err)
	}
	if env.index(node) < 0 {
		return nil, fmt.Errorf("%s: %s is not a node of the cluster now", a.Name(), node)
	}
	env.pinned = node
	defer func() { env.pinned = "" }()
	return a.Fault.Inject(ctx, env)
}

// resolve names the node role r picks now.
func (e *Env) resolve(ctx context.Context, r Role) (string, error) {
	if r == RoleLeader {
		return e.streamLeader(ctx)
	}
	if e.Watch == nil {
		return "", fmt.Errorf("role %s needs the cluster's events, which this run does not watch", r)
	}
	st := e.Watch.Now()
	var node, what string
	switch r {
	case RoleNewLeader:
		node, what = st.Leader, "no leader change seen yet"
	case RoleOldLeader:
		node, what = st.OldLeader, "no leader deposed yet"
	case RoleCatchingUp:
		node, what = st.LatestCatchingUp(), "no replica is catching up now"
	case RoleEventNode:
		if e.event != nil {
			node = e.event.Node
		}
		what = "no event names a node for this window"
	}
	if node == "" {
		return "", fmt.Errorf("role %s: %s", r, what)
	}
	return node, nil
}

// pickNode is the node a single-node fault hits: the one a role pinned, or
// one of n at random.
func (e *Env) pickNode(n int) int {
	if e.pinned != "" {
		if i := e.index(e.pinned); i >= 0 {
			return i
		}
	}
	return e.rng().IntN(n)
}

// parseRole reads ":ROLE" after a fault's name; ok is false when there is
// none.
func parseRole(name, role string) (Role, error) {
	r := Role(strings.ToLower(role))
	if !slices.Contains(Roles, r) {
		names := make([]string, len(Roles))
		for i, x := range Roles {
			names[i] = string(x)
		}
		return "", fmt.Errorf("nemesis %s:%s: the role is one of %s", name, role, strings.Join(names, ", "))
	}
	if !slices.Contains(aimable, name) {
		return "", fmt.Errorf("nemesis %s:%s: only faults that hit one node take a role (%s)", name, role, strings.Join(aimable, ", "))
	}
	return r, nil
}

// rolesOf says whether any part of f is aimed at a role that match accepts.
func rolesOf(f Fault, match func(Role) bool) bool {
	switch f := f.(type) {
	case aimed:
		return match(f.role)
	case combo:
		return slices.ContainsFunc(f, func(p Fault) bool { return rolesOf(p, match) })
	case Triggered:
		return rolesOf(f.Fault, match)
	}
	return false
}

// AimAt aims every fault of faults that hits one node and names no role
// at role, inside combinations and triggers too: a workload whose cell
// targets one of several streams (Plan.AimLeader) puts single-node faults
// on that stream's leader. Faults that hit several nodes, or that aim by
// themselves (partition-leader, stepdown), are left as they are.
func AimAt(faults []Fault, role Role) []Fault {
	out := make([]Fault, len(faults))
	for i, f := range faults {
		out[i] = aimAt(f, role)
	}
	return out
}

func aimAt(f Fault, role Role) Fault {
	switch f := f.(type) {
	case aimed:
		return f
	case combo:
		c := make(combo, len(f))
		for i, p := range f {
			c[i] = aimAt(p, role)
		}
		return c
	case Triggered:
		f.Fault = aimAt(f.Fault, role)
		return f
	}
	name, _, _ := strings.Cut(f.Name(), "=")
	if slices.Contains(aimable, name) {
		return aimed{Fault: f, role: role}
	}
	return f
}
