package reports

import (
	"encoding/json"

	"github.com/jetstream-chaos/jetstream-chaos/run"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/catchup"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/kvupdate"
)

// kvOf decodes a kv-update cell's settings (zero for other workloads).
func kvOf(raw json.RawMessage) kvupdate.Options {
	var o kvupdate.Options
	_ = json.Unmarshal(raw, &o)
	return o
}

// specKV decodes a kv-update run's settings.
func specKV(s run.Spec) []kvupdate.Options {
	if s.Workload != "" && s.Workload != kvupdate.Name {
		return nil
	}
	var out []kvupdate.Options
	for _, raw := range s.Settings {
		out = append(out, kvOf(raw))
	}
	return out
}

// specCatchup decodes a catch-up run's settings (nil for other workloads).
func specCatchup(s run.Spec) *catchup.Options {
	if s.Workload != catchup.Name || len(s.Settings) == 0 {
		return nil
	}
	var o catchup.Options
	if json.Unmarshal(s.Settings[0], &o) != nil {
		return nil
	}
	return &o
}
