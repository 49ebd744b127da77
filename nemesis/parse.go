package nemesis

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Default parameters of the faults that take one.
const (
	DefaultLatency   = 100 * time.Millisecond
	DefaultLoss      = 10.0 // percent
	DefaultBandwidth = "1mbit"
	DefaultFileClass = classBlock
)

// names in the order help shows them; each maps to a constructor that takes
// the optional "=value" part.
var names = []string{
	"none",
	"partition-one", "partition-leader", "partition-halves",
	"kill", "restart", "pause", "wipe", "catchup",
	"power-loss", "power-loss-majority", "power-loss-all",
	"kill-majority", "kill-all", "restart-all", "pause-kill",
	"bitflip", "truncate", "member-replace",
	"stepdown",
	"latency", "loss", "bandwidth",
}

// takesParam lists the faults that take "=value", with its form.
var takesParam = map[string]string{
	"latency":   "latency=DURATION",
	"loss":      "loss=PERCENT",
	"bandwidth": "bandwidth=RATE",
	"bitflip":   "bitflip=" + strings.Join(fileClasses, "|"),
	"truncate":  "truncate=" + strings.Join(fileClasses, "|"),
}

func build(name, arg string) (Fault, error) {
	if _, ok := takesParam[name]; arg != "" && !ok {
		forms := make([]string, 0, len(takesParam))
		for _, n := range names {
			if f, ok := takesParam[n]; ok {
				forms = append(forms, f)
			}
		}
		return nil, fmt.Errorf("nemesis %q takes no parameter (only %s do)", name+"="+arg, strings.Join(forms, ", "))
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
	case "kill-majority":
		return crash{kind: crashMajority}, nil
	case "kill-all":
		return crash{kind: crashAll}, nil
	case "restart-all":
		return crash{kind: crashRestartAll}, nil
	case "pause-kill":
		return pauseKill{}, nil
	case "bitflip", "truncate":
		class := DefaultFileClass
		if arg != "" {
			class = strings.ToLower(arg)
		}
		if !slices.Contains(fileClasses, class) {
			return nil, fmt.Errorf("nemesis %s=%s: want one of %s (the stream's message blocks, its raft log, its raft snapshots)", name, arg, strings.Join(fileClasses, ", "))
		}
		return corrupt{truncate: name == "truncate", class: class}, nil
	case "member-replace":
		return memberReplace{}, nil
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
		return latency{delay: d}, nil
	case "loss":
		p := DefaultLoss
		if arg != "" {
			v, err := strconv.ParseFloat(strings.TrimSuffix(arg, "%"), 64)
			if err != nil || v <= 0 || v > 100 || math.Abs(math.Round(v*100)-v*100) > 1e-9 {
				return nil, fmt.Errorf("nemesis loss=%s: want a percentage in (0,100] with at most two decimals, such as 10%% or 0.5%%", arg)
			}
			p = v
		}
		return loss{percent: p}, nil
	case "bandwidth":
		text := DefaultBandwidth
		if arg != "" {
			text = arg
		}
		rate, err := parseRate(text)
		if err != nil {
			return nil, fmt.Errorf("nemesis bandwidth=%s: %v", arg, err)
		}
		return bandwidth{rate: rate, text: text}, nil
	}
	return nil, fmt.Errorf("unknown nemesis %q (valid: %s)", name, strings.Join(names, ", "))
}

// rateUnits are tc's bit rates (decimal, bits per second).
var rateUnits = []struct {
	suffix string
	bits   float64
}{{"gbit", 1e9}, {"mbit", 1e6}, {"kbit", 1e3}, {"bit", 1}}

// parseRate reads a tc-style rate (500kbit, 1mbit, 1.5gbit) as bytes per
// second, at least 8kbit (1000 bytes/s).
func parseRate(s string) (uint64, error) {
	for _, u := range rateUnits {
		if num, ok := strings.CutSuffix(s, u.suffix); ok {
			v, err := strconv.ParseFloat(num, 64)
			if err != nil || v <= 0 || math.IsInf(v, 0) {
				break
			}
			bytes := v * u.bits / 8
			if bytes < 1000 || bytes > 1e12 {
				return 0, errors.New("want a rate from 8kbit to 8000gbit")
			}
			return uint64(math.Round(bytes)), nil
		}
	}
	return 0, errors.New("want a rate in bits per second such as 500kbit, 1mbit or 1gbit")
}

// Names lists the fault names --nemesis accepts.
func Names() []string { return append([]string(nil), names...) }

// Parse reads a --nemesis value: a comma-separated list of faults that the
// schedule picks from, one per window. A fault may be a combination of
// several joined by "+" (partition-leader+kill), injected together in one
// window. "none" (or an empty list) means no faults and cannot be combined
// with others. Some faults take an optional parameter: latency=200ms,
// loss=5%, bandwidth=500kbit, bitflip=wal, truncate=snapshot. A fault that
// hits one node takes an optional role, whom it aims at: kill:old-leader
// (see Roles). A fault, or a combination, fires on an event instead of by
// the clock when a trigger follows "@": kill@leader-change+200ms,
// partition-leader@catchup-start, stepdown@snapshot,
// kill@log:/Catchup for stream/ (see Trigger). A fault listed twice is an
// error.
func Parse(list string) ([]Fault, error) {
	list = strings.TrimSpace(list)
	if list == "" || list == "none" {
		return nil, nil
	}
	var out []Fault
	seen := map[string]bool{}
	for _, item := range splitOutside(list, ',') {
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

// parseItem reads one fault, or a "+"-joined combination, each part with
// an optional ":ROLE", and an optional "@TRIGGER" for the whole.
func parseItem(item, list string) (Fault, error) {
	faultPart, trigPart, triggered := strings.Cut(item, "@")
	var parts combo
	inCombo := map[string]bool{}
	for _, p := range strings.Split(faultPart, "+") {
		p, role, hasRole := strings.Cut(strings.TrimSpace(p), ":")
		name, arg, hasArg := strings.Cut(p, "=")
		name = strings.ToLower(name)
		switch {
		case hasArg && arg == "":
			return nil, fmt.Errorf("nemesis %q: nothing after \"=\" (leave it out for the default)", p)
		case name == "":
			return nil, fmt.Errorf("empty nemesis name in %q", list)
		case name == "none":
			return nil, fmt.Errorf("nemesis \"none\" cannot be combined with other faults or triggered in %q", list)
		case inCombo[name]:
			return nil, fmt.Errorf("nemesis %q appears twice in %q", name, item)
		}
		inCombo[name] = true
		f, err := build(name, arg)
		if err != nil {
			return nil, err
		}
		if hasRole {
			r, err := parseRole(name, role)
			if err != nil {
				return nil, err
			}
			f = aimed{Fault: f, role: r}
		}
		parts = append(parts, f)
	}
	var f Fault = parts
	if len(parts) == 1 {
		f = parts[0]
	}
	if !triggered {
		return f, nil
	}
	t, err := parseTrigger(strings.TrimSpace(trigPart))
	if err != nil {
		return nil, fmt.Errorf("nemesis %q: %w", item, err)
	}
	return Triggered{Fault: f, Trigger: t}, nil
}
