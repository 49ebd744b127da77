package kvupdate

import (
	"fmt"
	"strconv"
	"strings"
)

// Mix weighs the writes a client chooses after its get: update (a put for
// blind-put, a create when the get found no value, as before), delete,
// purge and create (a create whatever the get found: on a live key it must
// be rejected, after a delete it must succeed over the marker). Written as
// "update:90,delete:5,purge:2,create:3"; weights are relative.
type Mix struct {
	Update int `json:"update"`
	Delete int `json:"delete,omitempty"`
	Purge  int `json:"purge,omitempty"`
	Create int `json:"create,omitempty"`
}

// DefaultMix is the workload as it always was: updates only.
var DefaultMix = Mix{Update: 100}

// ParseMix reads "op:weight,..." with ops update, delete, purge, create.
func ParseMix(s string) (Mix, error) {
	var m Mix
	seen := map[string]bool{}
	for _, part := range strings.Split(s, ",") {
		name, w, ok := strings.Cut(strings.TrimSpace(part), ":")
		n, err := strconv.Atoi(w)
		if !ok || err != nil || n < 0 {
			return Mix{}, fmt.Errorf("--mix %q: want op:weight pairs such as update:90,delete:10 (weights are integers >= 0)", s)
		}
		if seen[name] {
			return Mix{}, fmt.Errorf("--mix %q: %s given twice", s, name)
		}
		seen[name] = true
		switch name {
		case "update":
			m.Update = n
		case "delete":
			m.Delete = n
		case "purge":
			m.Purge = n
		case "create":
			m.Create = n
		default:
			return Mix{}, fmt.Errorf("--mix %q: unknown op %q, want update, delete, purge or create", s, name)
		}
	}
	if m.total() == 0 {
		return Mix{}, fmt.Errorf("--mix %q: the weights add up to 0", s)
	}
	return m, nil
}

func (m Mix) total() int { return m.Update + m.Delete + m.Purge + m.Create }

// String is the canonical form ParseMix reads, ops with weight 0 left out.
func (m Mix) String() string {
	var parts []string
	for _, p := range []struct {
		name string
		w    int
	}{{"update", m.Update}, {"delete", m.Delete}, {"purge", m.Purge}, {"create", m.Create}} {
		if p.w > 0 {
			parts = append(parts, fmt.Sprintf("%s:%d", p.name, p.w))
		}
	}
	return strings.Join(parts, ",")
}

// IsZero says the mix was not set (settings stored before --mix).
func (m Mix) IsZero() bool { return m.total() == 0 }

// choice is what a client does after its get.
type choice uint8

const (
	doUpdate choice = iota
	doDelete
	doPurge
	doCreate
)

// pick maps r in [0, total) to a choice.
func (m Mix) pick(r int) choice {
	switch {
	case r < m.Update:
		return doUpdate
	case r < m.Update+m.Delete:
		return doDelete
	case r < m.Update+m.Delete+m.Purge:
		return doPurge
	}
	return doCreate
}

// KeyDist is how clients pick keys: uniform, or Zipf with exponent S > 1
// (key 0 the most popular), written "zipf:1.1".
type KeyDist struct {
	Zipf float64 `json:"zipf,omitempty"` // 0: uniform
}

// ParseKeyDist reads "uniform" or "zipf:S".
func ParseKeyDist(s string) (KeyDist, error) {
	if s == "uniform" {
		return KeyDist{}, nil
	}
	if v, ok := strings.CutPrefix(s, "zipf:"); ok {
		z, err := strconv.ParseFloat(v, 64)
		if err == nil && z > 1 {
			return KeyDist{Zipf: z}, nil
		}
	}
	return KeyDist{}, fmt.Errorf("--key-dist %q: want uniform or zipf:S with S > 1 (e.g. zipf:1.1)", s)
}

func (d KeyDist) String() string {
	if d.Zipf == 0 {
		return "uniform"
	}
	return "zipf:" + strconv.FormatFloat(d.Zipf, 'g', -1, 64)
}

// History is the bucket's history per key (max_msgs_per_subject): 1 as
// `nats kv add` makes it, up to 64 (KV's maximum), or KeepAll.
type History int

// KeepAll keeps every revision so the stream can be read back whole.
const KeepAll History = -1

// ParseHistory reads 1..64 or "all".
func ParseHistory(s string) (History, error) {
	if s == "all" {
		return KeepAll, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > 64 {
		return 0, fmt.Errorf("--history %q: want 1..64 (KV's maximum) or all", s)
	}
	return History(n), nil
}

func (h History) String() string {
	if h == KeepAll {
		return "all"
	}
	return strconv.Itoa(int(h))
}

// maxMsgsPerSubject is the stream setting for h.
func (h History) maxMsgsPerSubject() int64 {
	if h == KeepAll {
		return keepAll
	}
	return int64(h)
}
