package docker

import "testing"

// The selector names the run's own label and the node placeholder a
// fault hook fills in.
func TestHookSelector(t *testing.T) {
	want := "-f label=io.jetstream-chaos.run=manual-1 -f label=io.jetstream-chaos.node={node}"
	if got := HookSelector("manual-1"); got != want {
		t.Errorf("HookSelector = %q, want %q", got, want)
	}
}
