package main

import (
	"fmt"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/nemesis"
	"github.com/jetstream-chaos/jetstream-chaos/workloads"
)

// refuseAimWithNothingDue refuses a fault aimed at due times (@due) in a cell whose
// workload announces none: it would wait the whole run and never fire.
func refuseAimWithNothingDue(workload string, nemeses []string, settings []workloads.Settings, base cluster.Config) error {
	for _, list := range nemeses {
		faults, err := nemesis.Parse(list)
		if err != nil || !nemesis.AimsAtDue(faults) {
			continue // a bad list is refused with its own error
		}
		for _, st := range settings {
			if st.Plan(base).Dues == "" {
				return fmt.Errorf("--nemesis %s: --workload %s has nothing due on the clock to aim at here (kv-update: --key-ttl; schedule)", list, workload)
			}
		}
	}
	return nil
}
