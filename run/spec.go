// Package run is the pipeline of one `chaos run`, the same for every
// workload: for every cell of the matrix it starts a cluster, sets the
// workload up, drives it while the nemesis schedule breaks things, heals,
// waits for recovery, lets the workload finish (final reads, read-back),
// tears down, judges the cell from its stored files with the workload's
// checkers, and stores it all under store/<run-id>/ as package record
// has it (the verdicts, the exit codes and the --expect policy are
// record's too).
package run

import (
	"fmt"
	"strings"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/record"
	"github.com/jetstream-chaos/jetstream-chaos/workloads"
)

// DefaultRecoveryTimeout bounds the wait for recovery when neither
// --recovery-timeout nor the workload says otherwise.
const DefaultRecoveryTimeout = 60 * time.Second

// SetSettings stores the workload's expanded settings in the spec.
func SetSettings(s *record.Spec, ss []workloads.Settings) error {
	s.Settings = s.Settings[:0]
	for _, x := range ss {
		raw, err := workloads.Marshal(x)
		if err != nil {
			return err
		}
		s.Settings = append(s.Settings, raw)
	}
	return nil
}

// settingsOf decodes the spec's settings with the workload's Decode.
func settingsOf(s record.Spec) ([]workloads.Settings, error) {
	w, err := workloads.Get(s.Workload)
	if err != nil {
		return nil, err
	}
	var out []workloads.Settings
	for _, raw := range s.Settings {
		x, err := w.Decode(raw)
		if err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	return out, nil
}

// ParseDirectGet reads --direct-get: on, off, both, or a comma list.
func ParseDirectGet(s string) ([]bool, error) {
	var out []bool
	for _, p := range strings.Split(s, ",") {
		switch strings.TrimSpace(p) {
		case "on", "true":
			out = append(out, true)
		case "off", "false":
			out = append(out, false)
		case "both":
			out = append(out, true, false)
		default:
			return nil, fmt.Errorf("--direct-get %q: want on, off or both", s)
		}
	}
	return out, nil
}
