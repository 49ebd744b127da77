package nemesis

import (
	"fmt"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

// Supporter is what Refuse asks: a cluster.Runtime before the run, or a
// running cluster.Cluster.
type Supporter interface {
	Supports(c cluster.Capability) error
}

// Refuse returns a one-line error naming the first fault the runtime cannot
// do and why, or nil when every fault can run. Call it before the run
// starts. The runtimes probe what the kernel offers (netem for latency and
// loss), so a refusal here is the probe's answer.
func Refuse(faults []Fault, s Supporter) error {
	for _, f := range faults {
		for _, c := range f.Needs() {
			if err := s.Supports(c); err != nil {
				return fmt.Errorf("nemesis %s refused: %w", f.Name(), err)
			}
		}
	}
	return nil
}
