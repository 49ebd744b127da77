package nemesis

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Default parameters of the network faults.
const (
	DefaultLatency = 100 * time.Millisecond
	DefaultLoss    = 10.0 // percent
)

// names in the order help shows them; each maps to a constructor that takes
// the optional "=value" part.
var names = []string{
	"none",
	"partition-one", "partition-leader", "partition-halves",
	"kill", "restart", "pause", "wipe", "catchup",
	"power-loss", "power-loss-majority", "power-loss-all",
	"stepdown",
	"latency", "loss",
}

func build(name, arg string) (Fault, error) {
	if arg != "" && name != "latency" && name != "loss" {
		return nil, fmt.Errorf("nemesis %q takes no parameter (only latency=DURATION and loss=PERCENT do)", name+"="+arg)
	}
	switch name {
	case "partition-one":
		return partition{kind: partOne}, nil
	case "partition-leader":
		return partition{kind: partLeader}, nil
	case "partition-halves":
		return partition{kind: partHalves}, nil
	case "kill":
		return process{kind: procKill}, nil
	case "restart":
		return process{kind: procRestart}, nil
	case "pause":
		return process{kind: procPause}, nil
	case "wipe":
		return wipe{}, nil
	case "catchup":
		return Rebuild{Node: -1}, nil
	case "power-loss":
		return powerLoss{scope: powerOne}, nil
	case "power-loss-majority":
		return powerLoss{scope: powerMajority}, nil
	case "power-loss-all":
		return powerLoss{scope: powerAll}, nil
	case "stepdown":
		return stepdown{}, nil
	case "latency":
		d := DefaultLatency
		if arg != "" {
			v, err := time.ParseDuration(arg)
			if err != nil || v <= 0 {
				return nil, fmt.Errorf("nemesis latency=%s: want a positive duration such as 200ms", arg)
			}
			d = v
		}
		return netem{delay: d}, nil
	case "loss":
		p := DefaultLoss
		if arg != "" {
			v, err := strconv.ParseFloat(strings.TrimSuffix(arg, "%"), 64)
			if err != nil || v <= 0 || v > 100 {
				return nil, fmt.Errorf("nemesis loss=%s: want a percentage in (0,100] such as 10%%", arg)
			}
			p = v
		}
		return netem{loss: p}, nil
	}
	return nil, fmt.Errorf("unknown nemesis %q (valid: %s)", name, strings.Join(names, ", "))
}

// Names lists the fault names --nemesis accepts.
func Names() []string { return append([]string(nil), names...) }

// Parse reads a --nemesis value: a comma-separated list of faults that the
// schedule picks from, one per window. A fault may be a combination of
// several joined by "+" (partition-leader+kill), injected together in one
// window. "none" (or an empty list) means no faults and cannot be combined
// with others. latency and loss take an optional parameter: latency=200ms,
// loss=5%. A fault listed twice is an error.
func Parse(list string) ([]Fault, error) {
	list = strings.TrimSpace(list)
	if list == "" || list == "none" {
		return nil, nil
	}
	var out []Fault
	seen := map[string]bool{}
	for _, item := range strings.Split(list, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			return nil, fmt.Errorf("empty nemesis name in %q", list)
		}
		if seen[strings.ToLower(item)] {
			return nil, fmt.Errorf("nemesis %q listed twice in %q", item, list)
		}
		seen[strings.ToLower(item)] = true
		f, err := parseItem(item, list)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// parseItem reads one fault, or a "+"-joined combination.
func parseItem(item, list string) (Fault, error) {
	var parts combo
	inCombo := map[string]bool{}
	for _, p := range strings.Split(item, "+") {
		name, arg, _ := strings.Cut(strings.TrimSpace(p), "=")
		name = strings.ToLower(name)
		switch {
		case name == "":
			return nil, fmt.Errorf("empty nemesis name in %q", list)
		case name == "none":
			return nil, fmt.Errorf("nemesis \"none\" cannot be combined with other faults in %q", list)
		case inCombo[name]:
			return nil, fmt.Errorf("nemesis %q appears twice in %q", name, item)
		}
		inCombo[name] = true
		f, err := build(name, arg)
		if err != nil {
			return nil, err
		}
		parts = append(parts, f)
	}
	if len(parts) == 1 {
		return parts[0], nil
	}
	return parts, nil
}
